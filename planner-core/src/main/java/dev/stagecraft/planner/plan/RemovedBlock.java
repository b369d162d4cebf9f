package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Literals;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code removed { from = type.name ... }} block, read from the raw block the language module
 * keeps: its instances leave state without a resource block, destroyed (with the block's
 * destroy-time provisioners) or, with {@code lifecycle { destroy = false }}, forgotten.
 *
 * @param destroy the {@code lifecycle { destroy = ... }} value, or null when not given
 * @param provisioners the block's provisioners (all {@code when = destroy})
 */
public record RemovedBlock(
    String from,
    SourceRange fromRange,
    Boolean destroy,
    List<ProvisionerDecl> provisioners,
    Optional<BlockDecl> connection,
    SourceRange range) {

  /** Whether it removes a whole module call ({@code from = module.app}). */
  public boolean wholeModule() {
    return from.startsWith("module.");
  }

  /** Whether it covers the resource at the flattened address {@code resourceAddress}. */
  boolean covers(String resourceAddress) {
    if (!wholeModule()) {
      return from.equals(resourceAddress);
    }
    String name = resourceAddress.substring(resourceAddress.indexOf('.') + 1);
    return name.startsWith(from + ".") || name.startsWith(from + "{");
  }

  /** {@code from} as Terraform writes it. */
  String shown() {
    return wholeModule() ? from : ModuleAddresses.external(from);
  }

  static RemovedBlock parse(BlockDecl b, Diagnostics diagnostics) {
    Optional<AttributeDecl> fromAttr = b.attribute("from");
    if (fromAttr.isEmpty()) {
      diagnostics.error(
          "Missing required argument",
          "A removed block needs a from argument naming the resource, such as"
              + " from = stateful_provisioning.app.",
          b.range());
      return null;
    }
    Expression e = fromAttr.get().expr();
    String from = e instanceof Expression.ScopeTraversal st ? from(st.traversal()) : null;
    if (from == null) {
      diagnostics.error(
          "Invalid removed address",
          "The from argument of a removed block must be the address of a managed resource or of"
              + " a module call, such as stateful_provisioning.app, module.web.null_resource.app or"
              + " module.web (without an instance key or attribute).",
          e.range());
      return null;
    }
    Boolean destroy = null;
    for (BlockDecl nested : b.blocks()) {
      switch (nested.type()) {
        case "lifecycle" -> {
          for (AttributeDecl a : nested.attributes().values()) {
            if (!a.name().equals("destroy")) {
              diagnostics.error(
                  "Unsupported argument",
                  "A lifecycle block inside a removed block may only set destroy.",
                  a.range());
            }
          }
          destroy = Lifecycle.bool(nested, "destroy", diagnostics);
        }
        case "provisioner", "connection" -> {}
        default ->
            diagnostics.error(
                "Unsupported block type",
                "A removed block may contain lifecycle, provisioner and connection blocks, not "
                    + nested.type()
                    + ".",
                nested.range());
      }
    }
    for (AttributeDecl a : b.attributes().values()) {
      if (!a.name().equals("from")) {
        diagnostics.error(
            "Unsupported argument",
            "A removed block has no argument \"" + a.name() + "\".",
            a.range());
      }
    }
    List<ProvisionerDecl> provisioners =
        b.blocks("provisioner").stream().map(p -> provisioner(p, diagnostics)).toList();
    if (from.startsWith("module.") && !provisioners.isEmpty()) {
      diagnostics.error(
          "Invalid provisioner in removed block",
          "A removed block for a whole module cannot have provisioners; name each resource of the"
              + " module in its own removed block (from = "
              + from
              + ".TYPE.NAME) to run destroy-time provisioners.",
          provisioners.get(0).range());
    }
    return new RemovedBlock(
        from,
        e.range(),
        destroy,
        provisioners,
        b.blocks("connection").stream().findFirst(),
        b.range());
  }

  /**
   * The flattened address a removed block names: {@code type.name}, {@code type.module.app.name}
   * for {@code module.app.type.name}, or a module path ({@code module.app}); null when it is none
   * of these (instance keys are not allowed).
   */
  private static String from(Traversal t) {
    List<String> parts = new ArrayList<>();
    parts.add(t.root());
    for (Traversal.Step step : t.steps()) {
      if (!(step instanceof Traversal.Attr a)) {
        return null;
      }
      parts.add(a.name());
    }
    int i = 0;
    StringBuilder module = new StringBuilder();
    while (i + 1 < parts.size() && parts.get(i).equals("module")) {
      module.append(module.isEmpty() ? "" : ".").append("module.").append(parts.get(i + 1));
      i += 2;
    }
    if (i == parts.size()) {
      return module.isEmpty() ? null : module.toString();
    }
    if (i + 2 != parts.size() || Traversal.SPECIAL_ROOTS.contains(parts.get(i))) {
      return null;
    }
    return parts.get(i) + "." + (module.isEmpty() ? "" : module + ".") + parts.get(i + 1);
  }

  private static ProvisionerDecl provisioner(BlockDecl p, Diagnostics diagnostics) {
    String type = p.labels().isEmpty() ? "" : p.labels().get(0);
    Map<String, AttributeDecl> attributes = new LinkedHashMap<>(p.attributes());
    String when = keyword(attributes.remove("when"), "create");
    String onFailure = keyword(attributes.remove("on_failure"), "fail");
    if (!"destroy".equals(when)) {
      diagnostics.error(
          "Invalid provisioner in removed block",
          "Provisioners in a removed block run when the removed instances are destroyed, so they"
              + " must say when = destroy.",
          p.range());
    }
    return new ProvisionerDecl(
        type, attributes, p.blocks("connection").stream().findFirst(), when, onFailure, p.range());
  }

  private static String keyword(AttributeDecl a, String otherwise) {
    if (a == null) {
      return otherwise;
    }
    if (a.expr() instanceof Expression.ScopeTraversal st) {
      return st.traversal().root();
    }
    return Literals.string(a.expr()).orElse(otherwise);
  }
}
