package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decodes {@code data "terraform_remote_state"} blocks (docs/planning.md "Remote state", ADR 0063):
 * a literal {@code backend} ({@code "stagecraft"} or {@code "http"}), and {@code config}, {@code
 * workspace} and {@code defaults} kept as expressions, evaluated before planning. Stateless.
 */
public final class RemoteStateBlocks {
  /** The data source type this decodes. */
  public static final String TYPE = "terraform_remote_state";

  /** {@code stagecraft}: a workspace of the run's tenant by name; {@code http}: by its address. */
  public static final Set<String> BACKENDS = Set.of("stagecraft", "http");

  /** The arguments besides {@code backend}. */
  public static final Set<String> ARGUMENTS = Set.of("config", "workspace", "defaults");

  private static final Set<String> META = Set.of("count", "for_each", "depends_on", "provider");

  private RemoteStateBlocks() {}

  /** The block as a declaration, or empty when it has errors (each reported). */
  static Optional<DataDecl> decode(Body.Block b, Diagnostics d) {
    String name = b.labels().get(1);
    Map<String, AttributeDecl> attrs = new LinkedHashMap<>();
    String backend = null;
    boolean ok = true;
    Set<String> allowed = new TreeSet<>(ARGUMENTS);
    allowed.add("backend");
    for (Body.Attribute a : b.body().attributes()) {
      if (a.name().equals("backend")) {
        backend = backend(a, d);
        ok &= backend != null;
      } else if (ARGUMENTS.contains(a.name())) {
        attrs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
      } else if (META.contains(a.name())) {
        d.error(
            "Unsupported argument",
            "\""
                + a.name()
                + "\" is not supported on a terraform_remote_state data source in Stagecraft: a"
                + " remote state is read once, before planning, and may depend on nothing but"
                + " variables and local values. Write one data block per workspace to read.",
            a.nameRange());
        ok = false;
      } else {
        d.error(
            "Unsupported argument",
            "An argument named \""
                + a.name()
                + "\" is not expected in a terraform_remote_state data source. Allowed"
                + " arguments: "
                + String.join(", ", allowed)
                + ".",
            a.nameRange());
        ok = false;
      }
    }
    for (Body.Block nb : b.body().blocks()) {
      d.error(
          "Unsupported block type",
          "Blocks of type \""
              + nb.type()
              + "\" are not expected in a terraform_remote_state data source; it takes the"
              + " arguments "
              + String.join(", ", allowed)
              + ".",
          nb.typeRange());
      ok = false;
    }
    if (backend == null && ok) {
      d.error(
          "Missing required argument",
          "The argument \"backend\" is required in data.terraform_remote_state."
              + name
              + ": backend = \"stagecraft\" with config = { workspace = \"NAME\" } reads a"
              + " workspace of this tenant; backend = \"http\" with config = { address ="
              + " \"<this Stagecraft's state address of the workspace>\" } reads it by its"
              + " Terraform HTTP backend address.",
          b.typeRange().to(b.labelRanges().get(1)));
      ok = false;
    }
    return ok ? Optional.of(new DataDecl(TYPE, name, backend, attrs, b.range())) : Optional.empty();
  }

  private static String backend(Body.Attribute a, Diagnostics d) {
    Optional<String> literal = Literals.string(a.expr());
    if (literal.isEmpty()) {
      d.error(
          "Invalid backend",
          "The backend of a terraform_remote_state must be a literal string: \"stagecraft\" or"
              + " \"http\".",
          a.expr().range());
      return null;
    }
    if (!BACKENDS.contains(literal.get())) {
      d.error(
          "Unsupported remote state backend",
          "Stagecraft reads remote state only from its own workspaces, so the backend \""
              + literal.get()
              + "\" cannot be read. Use backend = \"stagecraft\" with config = { workspace ="
              + " \"NAME\" } (a workspace of this tenant), or backend = \"http\" with config = {"
              + " address = \"<this Stagecraft's /tf/v1/workspaces/NAME/state address>\" }.",
          a.expr().range());
      return null;
    }
    return literal.get();
  }
}
