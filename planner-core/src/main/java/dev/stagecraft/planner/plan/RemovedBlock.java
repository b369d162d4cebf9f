package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.AttributeDecl;
import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Literals;
import dev.stagecraft.language.config.ProvisionerDecl;
import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
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
    if (!(e instanceof Expression.ScopeTraversal st)
        || !st.traversal().isResourceReference()
        || st.traversal().steps().size() != 1) {
      diagnostics.error(
          "Invalid removed address",
          "The from argument of a removed block must be the address of a managed resource, such"
              + " as stateful_provisioning.app (without an instance key or attribute).",
          e.range());
      return null;
    }
    Traversal t = st.traversal();
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
    return new RemovedBlock(
        t.resourceAddress().orElseThrow(),
        e.range(),
        destroy,
        provisioners,
        b.blocks("connection").stream().findFirst(),
        b.range());
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
