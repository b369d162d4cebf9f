package dev.stagecraft.language.config;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.diag.SourcePos;
import dev.stagecraft.language.diag.SourceRange;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.ExpressionResult;
import dev.stagecraft.language.syntax.ParseResult;
import dev.stagecraft.language.syntax.Parser;
import dev.stagecraft.language.syntax.Traversal;
import dev.stagecraft.language.types.TypeConstraints;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decodes the files of a module into a {@link Configuration}, validating the supported subset of
 * the Terraform language (design.md §3). Every problem is a diagnostic with file:line:col; anything
 * outside the subset is rejected, never silently ignored. Stateless and thread-safe.
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

  private static final Map<String, Set<String>> REQUIRED_ARGUMENTS =
      Map.of("stateful_provisioning", Set.of("state_key"));

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
    private final Map<String, VariableDecl> variables = new LinkedHashMap<>();
    private final List<ResourceDecl> resources = new ArrayList<>();
    private final Map<String, LocalDecl> locals = new LinkedHashMap<>();
    private final Map<String, OutputDecl> outputs = new LinkedHashMap<>();
    private final List<BlockDecl> removed = new ArrayList<>();
    private final List<BlockDecl> moved = new ArrayList<>();
    private final Map<String, DataDecl> dataSources = new LinkedHashMap<>();
    private final ModuleCalls modules;
    private final Map<String, ResourceDecl> byAddress = new LinkedHashMap<>();
    private final List<Traversal> dependsOnToCheck = new ArrayList<>();
    private final CheckBlocks checks;
    private Optional<String> requiredVersion = Optional.empty();

    Decoder(Diagnostics d) {
      this.d = d;
      this.checks = new CheckBlocks(d);
      this.modules = new ModuleCalls(d);
    }

    Configuration build() {
      return new Configuration(
          variables,
          resources,
          new ArrayList<>(locals.values()),
          new ArrayList<>(outputs.values()),
          removed,
          moved,
          requiredVersion,
          checks.checks(),
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
          if (labels(b, "name")) {
            variable(b);
          }
        }
        case "locals" -> {
          if (labels(b)) {
            locals(b);
          }
        }
        case "output" -> {
          if (labels(b, "name")) {
            output(b);
          }
        }
        case "resource" -> {
          if (labels(b, "type", "name")) {
            resource(b);
          }
        }
        case "removed" -> {
          if (labels(b)) {
            removed.add(BlockDecl.of(b));
          }
        }
        case "moved" -> {
          if (labels(b)) {
            moved.add(BlockDecl.of(b));
          }
        }
        case "terraform" -> {
          if (labels(b)) {
            terraform(b);
          }
        }
        case "provider" -> {
          if (labels(b, "name")) {
            provider(b);
          }
        }
        case "data" -> {
          if (labels(b, "type", "name")) {
            dataSource(b);
          }
        }
        case "module" -> {
          if (labels(b, "name")) {
            List<Traversal> deps = List.of();
            for (Body.Attribute a : b.body().attributes()) {
              if (a.name().equals("depends_on")) {
                deps = dependsOn(a);
              }
            }
            modules.call(b, deps);
          }
        }
        case "check" -> {
          if (labels(b, "name")) {
            checks.check(b);
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

    private boolean labels(Body.Block b, String... names) {
      if (b.labels().size() == names.length) {
        return true;
      }
      if (b.labels().size() < names.length) {
        d.error(
            "Missing " + names[b.labels().size()] + " for " + b.type(),
            "All "
                + b.type()
                + " blocks must have "
                + names.length
                + " label(s): "
                + String.join(", ", names)
                + ". Example: "
                + example(b.type())
                + ".",
            b.typeRange());
      } else {
        d.error(
            "Extraneous label for " + b.type(),
            "A "
                + b.type()
                + " block expects "
                + names.length
                + " label(s)"
                + (names.length == 0 ? "" : " (" + String.join(", ", names) + ")")
                + "; remove the extra label(s).",
            b.labelRanges().get(names.length));
      }
      return false;
    }

    private static String example(String type) {
      return switch (type) {
        case "resource" -> "resource \"stateful_provisioning\" \"app\" { ... }";
        case "provisioner" -> "provisioner \"local-exec\" { ... }";
        default -> type + " \"name\" { ... }";
      };
    }

    private void unexpectedAttribute(Body.Attribute a, String where, Set<String> allowed) {
      d.error(
          "Unsupported argument",
          "An argument named \""
              + a.name()
              + "\" is not expected in "
              + where
              + ". Allowed arguments: "
              + String.join(", ", new TreeSet<>(allowed))
              + ".",
          a.nameRange());
    }

    private void unexpectedBlock(Body.Block b, String where, Set<String> allowed) {
      d.error(
          "Unsupported block type",
          "Blocks of type \""
              + b.type()
              + "\" are not expected in "
              + where
              + "."
              + (allowed.isEmpty()
                  ? ""
                  : " Allowed blocks: " + String.join(", ", new TreeSet<>(allowed)) + "."),
          b.typeRange());
    }

    private Optional<String> literalString(Body.Attribute a, String what) {
      Optional<String> s = Literals.string(a.expr());
      if (s.isEmpty()) {
        d.error(
            "Invalid " + what,
            "The " + what + " must be a literal string (no references or function calls).",
            a.expr().range());
      }
      return s;
    }

    private boolean literalBool(Body.Attribute a, String what) {
      Optional<Boolean> b = Literals.bool(a.expr());
      if (b.isEmpty()) {
        d.error(
            "Invalid " + what,
            "The " + what + " must be the literal true or false.",
            a.expr().range());
        return false;
      }
      return b.get();
    }

    // ------------------------------------------------------------- variable

    private void variable(Body.Block b) {
      String name = b.labels().get(0);
      Optional<Expression> def = Optional.empty();
      Optional<Expression> type = Optional.empty();
      Optional<String> desc = Optional.empty();
      boolean sensitive = false;
      boolean nullable = true;
      Set<String> allowed = Set.of("default", "type", "description", "sensitive", "nullable");
      for (Body.Attribute a : b.body().attributes()) {
        switch (a.name()) {
          case "default" -> {
            def = Optional.of(a.expr());
            if (!a.expr().traversals().isEmpty()) {
              d.error(
                  "Variables not allowed",
                  "The default value of variable \""
                      + name
                      + "\" may not refer to other values ("
                      + a.expr().traversals().get(0)
                      + "); use a literal value.",
                  a.expr().traversals().get(0).range());
            }
          }
          case "type" -> {
            type = Optional.of(a.expr());
            d.addAll(TypeConstraints.parse(a.expr()).diagnostics());
          }
          case "description" -> desc = literalString(a, "description");
          case "sensitive" -> sensitive = literalBool(a, "value for \"sensitive\"");
          case "nullable" -> nullable = literalBool(a, "value for \"nullable\"");
          default -> unexpectedAttribute(a, "a variable block", allowed);
        }
      }
      List<BlockDecl> validations = new ArrayList<>();
      for (Body.Block nb : b.body().blocks()) {
        if (nb.type().equals("validation")) {
          BlockDecl v = BlockDecl.of(nb);
          if (v.attribute("condition").isEmpty() || v.attribute("error_message").isEmpty()) {
            d.error(
                "Invalid validation block",
                "A validation block needs both \"condition\" and \"error_message\".",
                nb.typeRange());
          }
          validations.add(v);
        } else {
          unexpectedBlock(nb, "a variable block", Set.of("validation"));
        }
      }
      VariableDecl v =
          new VariableDecl(name, def, type, desc, sensitive, nullable, validations, b.range());
      VariableDecl prev = variables.putIfAbsent(name, v);
      if (prev != null) {
        d.error(
            "Duplicate variable declaration",
            "A variable named \""
                + name
                + "\" was already declared at "
                + prev.range()
                + ". Variable names must be unique within a module.",
            b.labelRanges().get(0));
      }
    }

    // ------------------------------------------------------------- locals / outputs / terraform

    private void locals(Body.Block b) {
      for (Body.Block nb : b.body().blocks()) {
        unexpectedBlock(nb, "a locals block", Set.of());
      }
      for (Body.Attribute a : b.body().attributes()) {
        LocalDecl l = new LocalDecl(a.name(), a.expr(), a.range());
        LocalDecl prev = locals.putIfAbsent(a.name(), l);
        if (prev != null) {
          d.error(
              "Duplicate local value definition",
              "A local value named \""
                  + a.name()
                  + "\" was already defined at "
                  + prev.range()
                  + ". Local value names must be unique within a module.",
              a.nameRange());
        }
      }
    }

    private void output(Body.Block b) {
      String name = b.labels().get(0);
      Expression value = null;
      Optional<String> desc = Optional.empty();
      boolean sensitive = false;
      List<Traversal> deps = List.of();
      Set<String> allowed = Set.of("value", "description", "sensitive", "depends_on");
      for (Body.Attribute a : b.body().attributes()) {
        switch (a.name()) {
          case "value" -> value = a.expr();
          case "description" -> desc = literalString(a, "description");
          case "sensitive" -> sensitive = literalBool(a, "value for \"sensitive\"");
          case "depends_on" -> deps = dependsOn(a);
          default -> unexpectedAttribute(a, "an output block", allowed);
        }
      }
      List<BlockDecl> pre = new ArrayList<>();
      for (Body.Block nb : b.body().blocks()) {
        if (nb.type().equals("precondition")) {
          pre.add(BlockDecl.of(nb));
        } else {
          unexpectedBlock(nb, "an output block", Set.of("precondition"));
        }
      }
      if (value == null) {
        d.error(
            "Missing required argument",
            "The argument \"value\" is required in output \"" + name + "\": value = <expression>.",
            b.typeRange());
        return;
      }
      OutputDecl o = new OutputDecl(name, value, desc, sensitive, deps, pre, b.range());
      OutputDecl prev = outputs.putIfAbsent(name, o);
      if (prev != null) {
        d.error(
            "Duplicate output definition",
            "An output named \"" + name + "\" was already defined at " + prev.range() + ".",
            b.labelRanges().get(0));
      }
    }

    private void terraform(Body.Block b) {
      for (Body.Attribute a : b.body().attributes()) {
        if (a.name().equals("required_version")) {
          requiredVersion = literalString(a, "required_version");
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

    private void resource(Body.Block b) {
      String type = b.labels().get(0);
      String name = b.labels().get(1);
      Set<String> args = RESOURCE_ARGUMENTS.get(type);
      if (args == null) {
        d.error(
            "Unsupported resource type",
            "The resource type \""
                + type
                + "\" is not supported. Supported resource types: "
                + String.join(", ", new TreeSet<>(RESOURCE_ARGUMENTS.keySet()))
                + ".",
            b.labelRanges().get(0));
        return;
      }
      String where = "a " + type + " resource";
      Map<String, AttributeDecl> attrs = new LinkedHashMap<>();
      List<Traversal> deps = List.of();
      Optional<Expression> count = Optional.empty();
      Optional<Expression> forEach = Optional.empty();
      Set<String> allowed = new TreeSet<>(args);
      allowed.addAll(META_ARGUMENTS);
      for (Body.Attribute a : b.body().attributes()) {
        switch (a.name()) {
          case "depends_on" -> deps = dependsOn(a);
          case "count" -> count = Optional.of(a.expr());
          case "for_each" -> forEach = Optional.of(a.expr());
          default -> {
            if (args.contains(a.name())) {
              attrs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
            } else {
              unexpectedAttribute(a, where, allowed);
            }
          }
        }
      }
      if (count.isPresent() && forEach.isPresent()) {
        d.error(
            "Invalid combination of \"count\" and \"for_each\"",
            "The \"count\" and \"for_each\" meta-arguments are mutually exclusive; only one may be"
                + " used in "
                + type
                + "."
                + name
                + ".",
            forEach.get().range());
      }
      for (String req : REQUIRED_ARGUMENTS.getOrDefault(type, Set.of())) {
        if (!attrs.containsKey(req)) {
          d.error(
              "Missing required argument",
              "The argument \""
                  + req
                  + "\" is required in "
                  + type
                  + "."
                  + name
                  + ", but no definition was found. Add "
                  + req
                  + " = <value>.",
              b.typeRange().to(b.labelRanges().get(1)));
        }
      }
      List<ProvisionerDecl> provisioners = new ArrayList<>();
      Optional<BlockDecl> connection = Optional.empty();
      Optional<BlockDecl> lifecycle = Optional.empty();
      Set<String> blocks = Set.of("provisioner", "connection", "lifecycle");
      for (Body.Block nb : b.body().blocks()) {
        switch (nb.type()) {
          case "provisioner" -> {
            if (labels(nb, "type")) {
              provisioner(nb).ifPresent(provisioners::add);
            }
          }
          case "connection" -> {
            if (connection.isPresent()) {
              duplicateBlock(nb, connection.get());
            } else if (labels(nb)) {
              connection = Optional.of(connection(nb));
            }
          }
          case "lifecycle" -> {
            if (lifecycle.isPresent()) {
              duplicateBlock(nb, lifecycle.get());
            } else if (labels(nb)) {
              lifecycle = Optional.of(lifecycle(nb));
            }
          }
          default -> unexpectedBlock(nb, where, blocks);
        }
      }
      ResourceDecl r =
          new ResourceDecl(
              type,
              name,
              attrs,
              deps,
              count,
              forEach,
              provisioners,
              connection,
              lifecycle,
              b.range());
      ResourceDecl prev = byAddress.putIfAbsent(r.address(), r);
      if (prev != null) {
        d.error(
            "Duplicate resource \"" + type + "\" configuration",
            "A "
                + type
                + " resource named \""
                + name
                + "\" was already declared at "
                + prev.range()
                + ". Resource names must be unique per type in each module.",
            b.labelRanges().get(1));
        return;
      }
      resources.add(r);
    }

    private void duplicateBlock(Body.Block nb, BlockDecl prev) {
      d.error(
          "Duplicate " + nb.type() + " block",
          "Only one "
              + nb.type()
              + " block is allowed here; another was declared at "
              + prev.range()
              + ".",
          nb.typeRange());
    }

    private List<Traversal> dependsOn(Body.Attribute a) {
      if (!(a.expr() instanceof Expression.Tuple t)) {
        d.error(
            "Invalid depends_on",
            "depends_on must be a list of resource references, e.g. depends_on ="
                + " [stateful_provisioning.app].",
            a.expr().range());
        return List.of();
      }
      List<Traversal> out = new ArrayList<>();
      for (Expression element : t.elements()) {
        Expression e = unquotedReference(element);
        if (e instanceof Expression.ScopeTraversal st
            && st.traversal().isResourceReference()
            && st.traversal().steps().size() == 1) {
          out.add(st.traversal());
          dependsOnToCheck.add(st.traversal());
        } else if (e instanceof Expression.ScopeTraversal st
            && (st.traversal().root().equals("var")
                || st.traversal().root().equals("local")
                || st.traversal().root().equals("module"))
            && st.traversal().steps().size() == 1) {
          // as Terraform allows: an input variable, a local value or a whole module
          out.add(st.traversal());
        } else {
          d.error(
              "Invalid depends_on reference",
              "depends_on may only refer to whole resources, like stateful_provisioning.app,"
                  + " input variables or local values, without attribute access or indexes"
                  + (e instanceof Expression.ScopeTraversal st2
                      ? "; found " + st2.traversal() + "."
                      : "; found an expression."),
              e.range());
        }
      }
      return out;
    }

    /**
     * A reference written in quotes ({@code "null_resource.a"}), as Terraform 0.11 required:
     * accepted with Terraform's deprecation warning, as the reference it names; anything else as it
     * is.
     */
    Expression unquotedReference(Expression e) {
      if (!(e instanceof Expression.Template tpl) || !tpl.isLiteral()) {
        return e;
      }
      SourcePos start = e.range().start();
      ExpressionResult parsed =
          Parser.parseExpression(
              e.range().file(),
              tpl.literalText(),
              new SourcePos(start.line(), start.column() + 1, start.offset() + 1));
      if (parsed.diagnostics().hasErrors()
          || !(parsed.expression() instanceof Expression.ScopeTraversal)) {
        return e;
      }
      d.warning(QUOTED_REFERENCE, QUOTED_REFERENCE_DETAIL, e.range());
      return parsed.expression();
    }

    private Optional<ProvisionerDecl> provisioner(Body.Block b) {
      String type = b.labels().get(0);
      Set<String> args = PROVISIONER_ARGUMENTS.get(type);
      if (args == null) {
        d.error(
            "Unsupported provisioner type",
            "The provisioner type \""
                + type
                + "\" is not supported. Supported provisioners: "
                + String.join(", ", new TreeSet<>(PROVISIONER_ARGUMENTS.keySet()))
                + ".",
            b.labelRanges().get(0));
        return Optional.empty();
      }
      String where = "a " + type + " provisioner";
      Set<String> allowed = new TreeSet<>(args);
      allowed.add("when");
      allowed.add("on_failure");
      Map<String, AttributeDecl> attrs = new LinkedHashMap<>();
      String when = "create";
      String onFailure = "fail";
      for (Body.Attribute a : b.body().attributes()) {
        switch (a.name()) {
          case "when" -> when = keyword(a, Set.of("create", "destroy"), when);
          case "on_failure" -> onFailure = keyword(a, Set.of("fail", "continue"), onFailure);
          default -> {
            if (args.contains(a.name())) {
              attrs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
            } else {
              unexpectedAttribute(a, where, allowed);
            }
          }
        }
      }
      Optional<BlockDecl> connection = Optional.empty();
      for (Body.Block nb : b.body().blocks()) {
        if (nb.type().equals("connection")) {
          if (connection.isPresent()) {
            duplicateBlock(nb, connection.get());
          } else if (labels(nb)) {
            connection = Optional.of(connection(nb));
          }
        } else {
          unexpectedBlock(nb, where, Set.of("connection"));
        }
      }
      switch (type) {
        case "local-exec" -> requireOne(b, attrs, where, "command");
        case "remote-exec" -> requireOne(b, attrs, where, "inline", "script", "scripts");
        case "file" -> {
          requireOne(b, attrs, where, "source", "content");
          requireOne(b, attrs, where, "destination");
        }
        default -> {}
      }
      return Optional.of(new ProvisionerDecl(type, attrs, connection, when, onFailure, b.range()));
    }

    private void requireOne(
        Body.Block b, Map<String, AttributeDecl> attrs, String where, String... names) {
      long n = Arrays.stream(names).filter(attrs::containsKey).count();
      if (n == 0) {
        d.error(
            "Missing required argument",
            names.length == 1
                ? "The argument \"" + names[0] + "\" is required in " + where + "."
                : where + " requires exactly one of: " + String.join(", ", names) + ".",
            b.typeRange());
      } else if (n > 1) {
        d.error(
            "Conflicting arguments",
            where + " accepts only one of: " + String.join(", ", names) + ".",
            b.typeRange());
      }
    }

    /** Accepts a bare keyword ({@code when = destroy}) or a literal string. */
    private String keyword(Body.Attribute a, Set<String> allowed, String dflt) {
      Optional<String> kw = Optional.empty();
      if (a.expr() instanceof Expression.ScopeTraversal st && st.traversal().steps().isEmpty()) {
        kw = Optional.of(st.traversal().root());
      } else {
        kw = Literals.string(a.expr());
      }
      if (kw.isEmpty() || !allowed.contains(kw.get())) {
        d.error(
            "Invalid \"" + a.name() + "\" value",
            "The \""
                + a.name()
                + "\" argument must be one of "
                + String.join(" or ", new TreeSet<>(allowed))
                + " (a bare keyword, e.g. "
                + a.name()
                + " = "
                + new TreeSet<>(allowed).last()
                + ").",
            a.expr().range());
        return dflt;
      }
      return kw.get();
    }

    private BlockDecl connection(Body.Block b) {
      for (Body.Attribute a : b.body().attributes()) {
        if (!CONNECTION_ARGUMENTS.contains(a.name())) {
          unexpectedAttribute(a, "a connection block", CONNECTION_ARGUMENTS);
        }
      }
      for (Body.Block nb : b.body().blocks()) {
        unexpectedBlock(nb, "a connection block", Set.of());
      }
      ConnectionArguments.check(b.body(), d);
      return BlockDecl.of(b);
    }

    private BlockDecl lifecycle(Body.Block b) {
      for (Body.Attribute a : b.body().attributes()) {
        if (!LIFECYCLE_ARGUMENTS.contains(a.name())) {
          unexpectedAttribute(a, "a lifecycle block", LIFECYCLE_ARGUMENTS);
        }
      }
      for (Body.Block nb : b.body().blocks()) {
        if (!nb.type().equals("precondition") && !nb.type().equals("postcondition")) {
          unexpectedBlock(nb, "a lifecycle block", Set.of("precondition", "postcondition"));
        }
      }
      return BlockDecl.of(b);
    }

    void checkReferences() {
      for (Traversal t : dependsOnToCheck) {
        String addr = t.resourceAddress().orElseThrow();
        if (!byAddress.containsKey(addr)) {
          d.error(
              "Reference to undeclared resource",
              "depends_on refers to "
                  + addr
                  + ", which is not declared in this configuration. Declare it or remove the"
                  + " reference.",
              t.range());
        }
      }
    }
  }
}
