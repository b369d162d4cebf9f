package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Decodes the files of a module into a {@link Configuration}, validating the supported subset of
 * the Terraform language (design.md §3). Every problem is a diagnostic with file:line:col; anything
 * outside the subset is rejected, never silently ignored. Stateless and thread-safe.
 *
 * <p>This class reads the files and dispatches each top-level block to its decoder: {@link
 * ValueBlocks} (variable, locals, output), {@link ResourceBlocks}, {@link ModuleCalls}, {@link
 * CheckBlocks}, {@link RemoteStateBlocks}; {@link BlockChecks} holds the checks they share and
 * {@link DependsOnLists} the {@code depends_on} lists.
 */
public final class ConfigLoader {

  /** Resource types and the arguments each accepts (besides meta-arguments). */
  public static final Map<String, Set<String>> RESOURCE_ARGUMENTS =
      Map.of(
          "stateful_provisioning", Set.of("state_key", "triggers", "tags"),
          "null_resource", Set.of("triggers"),
          "terraform_data", Set.of("input", "triggers_replace"));

  /** Providers whose resource types are implemented here: their blocks are accepted, ignored. */
  private static final Set<String> PROVIDERS = Set.of("null", "stateful");

  public static final Set<String> META_ARGUMENTS = Set.of("depends_on", "count", "for_each");

  /** Terraform's warning for a reference in quotes ({@code depends_on = ["null_resource.a"]}). */
  public static final String QUOTED_REFERENCE = "Quoted references are deprecated";

  public static final String QUOTED_REFERENCE_DETAIL =
      "In this context, references are expected literally rather than in quotes. Terraform 0.11"
          + " and earlier required quotes, but quoted references are now deprecated and will be"
          + " removed in a future version of Terraform. Remove the quotes surrounding this"
          + " reference to silence this warning.";

  public static final Map<String, Set<String>> PROVISIONER_ARGUMENTS =
      Map.of(
          // timeout and retries are Stagecraft's (per-step limit, retries of steps safe to retry)
          "local-exec",
          Set.of(
              "command",
              "environment",
              "working_dir",
              "interpreter",
              "quiet",
              "timeout",
              "retries"),
          "remote-exec",
          Set.of("inline", "script", "scripts", "timeout", "retries"),
          "file",
          Set.of("source", "content", "destination", "timeout", "retries"));

  /** Every argument a connection block accepts ({@link ConnectionArguments}). */
  public static final Set<String> CONNECTION_ARGUMENTS = ConnectionArguments.NAMES;

  public static final Set<String> LIFECYCLE_ARGUMENTS =
      Set.of(
          "create_before_destroy",
          "prevent_destroy",
          "ignore_changes",
          "replace_triggered_by",
          "enabled",
          "destroy");

  private static final String TOP_LEVEL =
      "variable, locals, output, resource, module, removed, moved, check, data, terraform";

  private ConfigLoader() {}

  /**
   * Loads a module from its files.
   *
   * @param files file name → contents; {@code *.tf} (native syntax) and {@code *.tf.json} (JSON
   *     syntax) files are decoded in name order into one model
   */
  public static LoadResult load(Map<String, String> files) {
    Diagnostics d = new Diagnostics();
    Decoder dec = new Decoder(d);
    for (Map.Entry<String, String> f : new TreeMap<>(files).entrySet()) {
      String name = f.getKey();
      SourceRange fileStart = new SourceRange(name, SourcePos.START, SourcePos.START);
      if (name.endsWith(".tf.json")) {
        ParseResult pr = JsonConfig.parse(name, f.getValue());
        d.addAll(pr.diagnostics());
        dec.file(pr.body());
        continue;
      }
      if (!name.endsWith(".tf")) {
        d.warning(
            "File ignored",
            "Only *.tf and *.tf.json files are configuration; " + name + " was ignored.",
            fileStart);
        continue;
      }
      ParseResult pr = Parser.parse(name, f.getValue());
      d.addAll(pr.diagnostics());
      dec.file(pr.body());
    }
    dec.checkReferences();
    return new LoadResult(dec.build(), d);
  }

  /** Convenience for a single file. */
  public static LoadResult load(String fileName, String text) {
    return load(Map.of(fileName, text));
  }

  private static final class Decoder {
    private final Diagnostics d;
    private final BlockChecks checks;
    private final DependsOnLists dependsOn;
    private final ValueBlocks values;
    private final ResourceBlocks resources;
    private final List<BlockDecl> removed = new ArrayList<>();
    private final List<BlockDecl> moved = new ArrayList<>();
    private final Map<String, DataDecl> dataSources = new LinkedHashMap<>();
    private final ModuleCalls modules;
    private final CheckBlocks checkBlocks;
    private Optional<String> requiredVersion = Optional.empty();

    Decoder(Diagnostics d) {
      this.d = d;
      this.checks = new BlockChecks(d);
      this.dependsOn = new DependsOnLists(d);
      this.values = new ValueBlocks(d, checks, dependsOn);
      this.resources = new ResourceBlocks(d, checks, dependsOn);
      this.checkBlocks = new CheckBlocks(d);
      this.modules = new ModuleCalls(d);
    }

    Configuration build() {
      return new Configuration(
          values.variables(),
          resources.resources(),
          values.locals(),
          values.outputs(),
          removed,
          moved,
          requiredVersion,
          checkBlocks.checks(),
          new ArrayList<>(dataSources.values()),
          modules.calls());
    }

    void file(Body body) {
      for (Body.BodyItem item : body.items()) {
        switch (item) {
          case Body.Attribute a ->
              d.error(
                  "Unsupported argument",
                  "An argument named \""
                      + a.name()
                      + "\" is not expected at the top level of a configuration file. Only blocks"
                      + " are allowed here: "
                      + TOP_LEVEL
                      + ".",
                  a.nameRange());
          case Body.Block b -> topLevelBlock(b);
        }
      }
    }

    private void topLevelBlock(Body.Block b) {
      switch (b.type()) {
        case "variable" -> {
          if (checks.labels(b, "name")) {
            values.variable(b);
          }
        }
        case "locals" -> {
          if (checks.labels(b)) {
            values.locals(b);
          }
        }
        case "output" -> {
          if (checks.labels(b, "name")) {
            values.output(b);
          }
        }
        case "resource" -> {
          if (checks.labels(b, "type", "name")) {
            resources.resource(b);
          }
        }
        case "removed" -> {
          if (checks.labels(b)) {
            removed.add(BlockDecl.of(b));
          }
        }
        case "moved" -> {
          if (checks.labels(b)) {
            moved.add(BlockDecl.of(b));
          }
        }
        case "terraform" -> {
          if (checks.labels(b)) {
            terraform(b);
          }
        }
        case "provider" -> {
          if (checks.labels(b, "name")) {
            provider(b);
          }
        }
        case "data" -> {
          if (checks.labels(b, "type", "name")) {
            dataSource(b);
          }
        }
        case "module" -> {
          if (checks.labels(b, "name")) {
            List<Traversal> deps = List.of();
            for (Body.Attribute a : b.body().attributes()) {
              if (a.name().equals("depends_on")) {
                deps = dependsOn.parse(a);
              }
            }
            modules.call(b, deps);
          }
        }
        case "check" -> {
          if (checks.labels(b, "name")) {
            checkBlocks.check(b);
          }
        }
        default ->
            d.error(
                "Unsupported block type",
                "Blocks of type \""
                    + b.type()
                    + "\" are not supported by Stagecraft. Supported top-level blocks: "
                    + TOP_LEVEL
                    + ".",
                b.typeRange());
      }
    }

    // ------------------------------------------------------------- variable

    // ------------------------------------------------------------- locals / outputs / terraform

    private void terraform(Body.Block b) {
      for (Body.Attribute a : b.body().attributes()) {
        if (a.name().equals("required_version")) {
          requiredVersion = checks.literalString(a, "required_version");
        } else {
          d.warning(
              "Ignored terraform setting",
              "The setting \"" + a.name() + "\" in the terraform block is ignored by Stagecraft.",
              a.nameRange());
        }
      }
      for (Body.Block nb : b.body().blocks()) {
        d.warning(
            "Ignored terraform setting",
            "The \"" + nb.type() + "\" block in the terraform block is ignored by Stagecraft.",
            nb.typeRange());
      }
    }

    /**
     * A provider block of a provider whose resource types Stagecraft implements ({@code null},
     * {@code stateful}) is ignored with a warning, as {@code required_providers} is; any other is
     * an error naming what is supported.
     */
    private void provider(Body.Block b) {
      String name = b.labels().get(0);
      if (PROVIDERS.contains(name)) {
        d.warning(
            "Ignored provider block",
            "Stagecraft implements the resources of provider \""
                + name
                + "\" itself; the provider block and its settings are ignored.",
            b.typeRange());
      } else {
        d.error(
            "Unsupported provider",
            "Stagecraft implements the resource types stateful_provisioning (provider"
                + " \"stateful\"), null_resource (provider \"null\") and terraform_data (built"
                + " in); provider \""
                + name
                + "\" is not among them. Remove the block and its resources.",
            b.labelRanges().get(0));
      }
    }

    /**
     * terraform_remote_state is the one supported data source ({@link RemoteStateBlocks}); the
     * common other ones get the Stagecraft way instead.
     */
    private void dataSource(Body.Block b) {
      String type = b.labels().get(0);
      if (type.equals(RemoteStateBlocks.TYPE)) {
        RemoteStateBlocks.decode(b, d)
            .ifPresent(
                decl -> {
                  DataDecl prev = dataSources.putIfAbsent(decl.name(), decl);
                  if (prev != null) {
                    d.error(
                        "Duplicate data \"" + type + "\" configuration",
                        "A terraform_remote_state data source named \""
                            + decl.name()
                            + "\" was already declared at "
                            + prev.range()
                            + ". Data source names must be unique per type in each module.",
                        b.labelRanges().get(1));
                  }
                });
        return;
      }
      UnsupportedDataSources.report(b, d, true);
    }

    // ------------------------------------------------------------- resources

    void checkReferences() {
      dependsOn.checkResourcesDeclared(resources.addresses());
    }
  }
}
