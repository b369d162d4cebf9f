package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * A {@code moved { from = ..., to = ... }} block, read from the raw block the language module
 * keeps: the object the state holds at {@code from} is the one now declared at {@code to}. Both
 * ends are resources ({@code type.name}: every instance moves, keeping its key) or both instances
 * ({@code type.name[0]}, {@code type.name["k"]}; a bare {@code type.name} facing an instance is the
 * instance without key, as in Terraform).
 */
public record MovedBlock(Endpoint from, Endpoint to, SourceRange range) {

  /**
   * One end of a move.
   *
   * @param key the instance key written in the address ({@code null}: none written)
   * @param instance true when the end names one instance (a key written, or a bare address facing
   *     an instance)
   */
  public record Endpoint(
      String type, String name, Object key, boolean instance, SourceRange range) {
    public String resource() {
      return type + "." + name;
    }

    /**
     * The address as written: {@code type.name}, {@code type.name[0]} or {@code type.name["k"]}.
     */
    public String address() {
      return resource() + InstanceKey.suffixOf(key);
    }

    /**
     * Where an instance at {@code instanceAddress} goes, or null when this end does not hold it.
     */
    String destinationOf(String instanceAddress, Endpoint to) {
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

    @Override
    public String toString() {
      return address();
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
    if (from.instance() != to.instance()) {
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
    if (!from.type().equals(to.type()) && !Moves.canChangeType(from.type(), to.type())) {
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
    if (e instanceof Expression.ScopeTraversal st
        && st.traversal().root().equals("module")
        && st.traversal().firstAttribute().isPresent()) {
      diagnostics.error(
          "Moves in modules are not supported yet",
          "This moved block names "
              + st.traversal()
              + ", in a module; Stagecraft moves objects between resources of the root module"
              + " only for now (docs/adr/0065).",
          e.range());
      return null;
    }
    if (!(e instanceof Expression.ScopeTraversal st)
        || !st.traversal().isResourceReference()
        || st.traversal().steps().size() > 2
        || (st.traversal().steps().size() == 2
            && !(st.traversal().steps().get(1) instanceof Traversal.Key))) {
      diagnostics.error(
          "Invalid address",
          "The "
              + which
              + " argument of a moved block must be the address of a managed resource or of one"
              + " of its instances, such as null_resource.app, null_resource.app[0] or"
              + " null_resource.app[\"eu\"] (no attribute, no expression).",
          e.range());
      return null;
    }
    Traversal t = st.traversal();
    Object key = null;
    if (t.steps().size() == 2) {
      Object written = ((Traversal.Key) t.steps().get(1)).key();
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
        key = n.intValueExact();
      } else {
        key = written;
      }
    }
    return new Endpoint(t.root(), t.firstAttribute().orElseThrow(), key, key != null, e.range());
  }
}
