package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.ModulePaths;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A {@code moved { from = ..., to = ... }} block, read from the raw block the language module
 * keeps: the object the state holds at {@code from} is the one now declared at {@code to}. Both
 * ends are resources ({@code type.name}: every instance moves, keeping its key), both instances
 * ({@code type.name[0]}, {@code type.name["k"]}; a bare {@code type.name} facing an instance is the
 * instance without key, as in Terraform), or both modules ({@code module.a}: every instance of the
 * call, keeping its key; {@code module.a["x"]}: one module instance). A resource end may be in a
 * module ({@code module.app.null_resource.x}), so objects move into and out of modules.
 */
public record MovedBlock(Endpoint from, Endpoint to, SourceRange range) {

  /**
   * One end of a move, named as the flattened configuration names it ({@code ModuleFlattener}).
   *
   * @param type the resource type; null for a module end
   * @param name the resource's flattened name ({@code x}, {@code module.app{"eu"}.x}), or a module
   *     end's flattened path ({@code module.app}, {@code module.app{"eu"}})
   * @param key the instance key written in the address ({@code null}: none written)
   * @param instance true when the end names one instance (a key written, or a bare address facing
   *     an instance; for a module end, a module instance key written)
   */
  public record Endpoint(
      String type, String name, Object key, boolean instance, SourceRange range) {
    boolean module() {
      return type == null;
    }

    public String resource() {
      return module() ? name : type + "." + name;
    }

    /**
     * The flattened address: {@code type.name}, {@code type.name[0]}, {@code type.name["k"]}, or a
     * module path.
     */
    public String address() {
      return module() ? name : resource() + InstanceKey.suffixOf(key);
    }

    /**
     * Where an instance at {@code instanceAddress} goes, or null when this end does not hold it.
     */
    String destinationOf(String instanceAddress, Endpoint to) {
      if (module()) {
        int dot = instanceAddress.indexOf('.');
        String inModule = instanceAddress.substring(dot + 1);
        boolean wholeCall = !instance && !to.instance();
        if (inModule.startsWith(name + ".") || wholeCall && inModule.startsWith(name + "{")) {
          return instanceAddress.substring(0, dot + 1)
              + to.name()
              + inModule.substring(name.length());
        }
        return null;
      }
      if (instance) {
        return instanceAddress.equals(address()) ? to.address() : null;
      }
      if (!InstanceKey.resourceOf(instanceAddress).equals(resource())) {
        return null;
      }
      return to.resource() + instanceAddress.substring(resource().length());
    }

    Endpoint asInstance() {
      return new Endpoint(type, name, key, true, range);
    }

    /** The address as Terraform writes it. */
    @Override
    public String toString() {
      return module() ? ModulePaths.external(name) : ModuleAddresses.external(address());
    }
  }

  /** The block, or null when it is invalid (errors added). */
  static MovedBlock parse(BlockDecl b, Diagnostics diagnostics) {
    for (AttributeDecl a : b.attributes().values()) {
      if (!a.name().equals("from") && !a.name().equals("to")) {
        diagnostics.error(
            "Unsupported argument",
            "A moved block has only the arguments from and to, not \"" + a.name() + "\".",
            a.range());
      }
    }
    for (BlockDecl nested : b.blocks()) {
      diagnostics.error(
          "Unsupported block type",
          "A moved block has no nested blocks; remove the " + nested.type() + " block.",
          nested.range());
    }
    Endpoint from = endpoint(b, "from", diagnostics);
    Endpoint to = endpoint(b, "to", diagnostics);
    if (from == null || to == null) {
      return null;
    }
    if (from.module() != to.module()) {
      diagnostics.error(
          "Invalid \"moved\" addresses",
          "The \"from\" and \"to\" addresses must either both refer to resources or both refer"
              + " to modules; this statement moves "
              + from
              + " to "
              + to
              + ".",
          b.range());
      return null;
    }
    if (!from.module() && from.instance() != to.instance()) {
      // a bare type.name facing an instance address is that resource's instance without key
      if (from.instance() && to.key() == null) {
        to = to.asInstance();
      } else if (to.instance() && from.key() == null) {
        from = from.asInstance();
      }
    }
    if (from.address().equals(to.address())) {
      diagnostics.error(
          "Redundant move statement",
          "This statement declares a move from "
              + from
              + " to the same address, which is the same as not declaring this move at all."
              + " Remove the moved block.",
          b.range());
      return null;
    }
    if (!from.module()
        && !from.type().equals(to.type())
        && !Moves.canChangeType(from.type(), to.type())) {
      diagnostics.error(
          "Resource type mismatch",
          "This statement declares a move from "
              + from
              + " to "
              + to
              + ", which is a resource of a different type. Stagecraft moves objects between"
              + " resources of the same type, and from null_resource to terraform_data (its"
              + " triggers become triggers_replace), as Terraform does.",
          b.range());
      return null;
    }
    return new MovedBlock(from, to, b.range());
  }

  private static Endpoint endpoint(BlockDecl b, String which, Diagnostics diagnostics) {
    Optional<AttributeDecl> attribute = b.attribute(which);
    if (attribute.isEmpty()) {
      diagnostics.error(
          "Missing required argument",
          "A moved block needs both from and to, such as from = null_resource.old and to ="
              + " null_resource.new; \""
              + which
              + "\" is missing.",
          b.range());
      return null;
    }
    Expression e = attribute.get().expr();
    if (!(e instanceof Expression.ScopeTraversal st)) {
      return invalid(which, e, diagnostics);
    }
    Traversal t = st.traversal();
    List<Object> parts = new ArrayList<>();
    parts.add(t.root());
    for (Traversal.Step step : t.steps()) {
      parts.add(step instanceof Traversal.Attr a ? a.name() : step);
    }
    int i = 0;
    StringBuilder module = new StringBuilder();
    boolean keyed = false;
    while (i < parts.size() && "module".equals(parts.get(i))) {
      if (i + 1 >= parts.size() || !(parts.get(i + 1) instanceof String call)) {
        return invalid(which, e, diagnostics);
      }
      module.append(module.isEmpty() ? "" : ".").append("module.").append(call);
      i += 2;
      keyed = i < parts.size() && parts.get(i) instanceof Traversal.Key;
      if (keyed) {
        Object key = key((Traversal.Key) parts.get(i), e, diagnostics);
        if (key == null) {
          return null;
        }
        module.append(ModulePaths.segment(key));
        i++;
      }
    }
    if (i == parts.size() && !module.isEmpty()) {
      return new Endpoint(null, module.toString(), null, keyed, e.range());
    }
    if (i + 2 > parts.size()
        || i + 3 < parts.size()
        || !(parts.get(i) instanceof String type)
        || Traversal.SPECIAL_ROOTS.contains(type)
        || !(parts.get(i + 1) instanceof String name)
        || i + 2 < parts.size() && !(parts.get(i + 2) instanceof Traversal.Key)) {
      return invalid(which, e, diagnostics);
    }
    Object key = null;
    if (i + 2 < parts.size()) {
      key = key((Traversal.Key) parts.get(i + 2), e, diagnostics);
      if (key == null) {
        return null;
      }
    }
    String flattened = module.isEmpty() ? name : module + "." + name;
    return new Endpoint(type, flattened, key, key != null, e.range());
  }

  private static Endpoint invalid(String which, Expression e, Diagnostics diagnostics) {
    diagnostics.error(
        "Invalid address",
        "The "
            + which
            + " argument of a moved block must be the address of a managed resource, of one of"
            + " its instances, or of a module, such as null_resource.app, null_resource.app[0],"
            + " null_resource.app[\"eu\"], module.web.null_resource.app or module.web[\"eu\"] (no attribute, no"
            + " expression).",
        e.range());
    return null;
  }

  /** A written instance key: a whole number ≥ 0 or a string; null when invalid (error added). */
  private static Object key(Traversal.Key k, Expression e, Diagnostics diagnostics) {
    Object written = k.key();
    if (written instanceof BigDecimal n) {
      if (n.signum() < 0 || n.stripTrailingZeros().scale() > 0) {
        diagnostics.error(
            "Invalid address",
            "An instance key of a counted resource is a whole number ≥ 0, not "
                + n.toPlainString()
                + ".",
            e.range());
        return null;
      }
      return n.intValueExact();
    }
    return written;
  }
}
