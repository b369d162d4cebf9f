package dev.stagecraft.language.config;

import static dev.stagecraft.language.config.ConfigLoader.CONNECTION_ARGUMENTS;
import static dev.stagecraft.language.config.ConfigLoader.LIFECYCLE_ARGUMENTS;
import static dev.stagecraft.language.config.ConfigLoader.META_ARGUMENTS;
import static dev.stagecraft.language.config.ConfigLoader.PROVISIONER_ARGUMENTS;
import static dev.stagecraft.language.config.ConfigLoader.RESOURCE_ARGUMENTS;

import dev.stagecraft.language.diag.Diagnostics;
import dev.stagecraft.language.syntax.Body;
import dev.stagecraft.language.syntax.Expression;
import dev.stagecraft.language.syntax.Traversal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code resource} blocks with their arguments, meta-arguments ({@code count}, {@code for_each},
 * {@code depends_on}) and nested {@code provisioner}, {@code connection} and {@code lifecycle}
 * blocks. Only the resource types and provisioners Stagecraft implements are accepted; anything
 * else is an error that lists what is supported.
 */
final class ResourceBlocks {
  /** Arguments a resource type cannot do without. */
  private static final Map<String, Set<String>> REQUIRED_ARGUMENTS =
      Map.of("stateful_provisioning", Set.of("state_key"));

  private final Diagnostics d;
  private final BlockChecks checks;
  private final DependsOnLists dependsOn;
  private final List<ResourceDecl> resources = new ArrayList<>();
  private final Map<String, ResourceDecl> byAddress = new LinkedHashMap<>();

  ResourceBlocks(Diagnostics d, BlockChecks checks, DependsOnLists dependsOn) {
    this.d = d;
    this.checks = checks;
    this.dependsOn = dependsOn;
  }

  List<ResourceDecl> resources() {
    return resources;
  }

  /** The addresses ({@code type.name}) of the resources declared so far. */
  Set<String> addresses() {
    return byAddress.keySet();
  }

  /** A resource's arguments and meta-arguments, as read from its body. */
  private record Arguments(
      Map<String, AttributeDecl> attrs,
      List<Traversal> deps,
      Optional<Expression> count,
      Optional<Expression> forEach) {}

  /** A resource's nested blocks. */
  private record NestedBlocks(
      List<ProvisionerDecl> provisioners,
      Optional<BlockDecl> connection,
      Optional<BlockDecl> lifecycle) {}

  void resource(Body.Block b) {
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
    Arguments a = arguments(b, args, where);
    checkArguments(b, a);
    NestedBlocks nested = nestedBlocks(b, where);
    register(
        b,
        new ResourceDecl(
            type,
            name,
            a.attrs(),
            a.deps(),
            a.count(),
            a.forEach(),
            nested.provisioners(),
            nested.connection(),
            nested.lifecycle(),
            b.range()));
  }

  private Arguments arguments(Body.Block b, Set<String> args, String where) {
    Map<String, AttributeDecl> attrs = new LinkedHashMap<>();
    List<Traversal> deps = List.of();
    Optional<Expression> count = Optional.empty();
    Optional<Expression> forEach = Optional.empty();
    Set<String> allowed = new TreeSet<>(args);
    allowed.addAll(META_ARGUMENTS);
    for (Body.Attribute a : b.body().attributes()) {
      switch (a.name()) {
        case "depends_on" -> deps = dependsOn.parse(a);
        case "count" -> count = Optional.of(a.expr());
        case "for_each" -> forEach = Optional.of(a.expr());
        default -> {
          if (args.contains(a.name())) {
            attrs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
          } else {
            checks.unexpectedAttribute(a, where, allowed);
          }
        }
      }
    }
    return new Arguments(attrs, deps, count, forEach);
  }

  /** {@code count} and {@code for_each} exclude each other; required arguments are present. */
  private void checkArguments(Body.Block b, Arguments a) {
    String type = b.labels().get(0);
    String name = b.labels().get(1);
    if (a.count().isPresent() && a.forEach().isPresent()) {
      d.error(
          "Invalid combination of \"count\" and \"for_each\"",
          "The \"count\" and \"for_each\" meta-arguments are mutually exclusive; only one may be"
              + " used in "
              + type
              + "."
              + name
              + ".",
          a.forEach().get().range());
    }
    for (String req : REQUIRED_ARGUMENTS.getOrDefault(type, Set.of())) {
      if (!a.attrs().containsKey(req)) {
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
  }

  private NestedBlocks nestedBlocks(Body.Block b, String where) {
    List<ProvisionerDecl> provisioners = new ArrayList<>();
    Optional<BlockDecl> connection = Optional.empty();
    Optional<BlockDecl> lifecycle = Optional.empty();
    Set<String> blocks = Set.of("provisioner", "connection", "lifecycle");
    for (Body.Block nb : b.body().blocks()) {
      switch (nb.type()) {
        case "provisioner" -> {
          if (checks.labels(nb, "type")) {
            provisioner(nb).ifPresent(provisioners::add);
          }
        }
        case "connection" -> {
          if (connection.isPresent()) {
            checks.duplicateBlock(nb, connection.get());
          } else if (checks.labels(nb)) {
            connection = Optional.of(connection(nb));
          }
        }
        case "lifecycle" -> {
          if (lifecycle.isPresent()) {
            checks.duplicateBlock(nb, lifecycle.get());
          } else if (checks.labels(nb)) {
            lifecycle = Optional.of(lifecycle(nb));
          }
        }
        default -> checks.unexpectedBlock(nb, where, blocks);
      }
    }
    return new NestedBlocks(provisioners, connection, lifecycle);
  }

  private void register(Body.Block b, ResourceDecl r) {
    ResourceDecl prev = byAddress.putIfAbsent(r.address(), r);
    if (prev != null) {
      d.error(
          "Duplicate resource \"" + r.type() + "\" configuration",
          "A "
              + r.type()
              + " resource named \""
              + r.name()
              + "\" was already declared at "
              + prev.range()
              + ". Resource names must be unique per type in each module.",
          b.labelRanges().get(1));
      return;
    }
    resources.add(r);
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
        case "when" -> when = checks.keyword(a, Set.of("create", "destroy"), when);
        case "on_failure" -> onFailure = checks.keyword(a, Set.of("fail", "continue"), onFailure);
        default -> {
          if (args.contains(a.name())) {
            attrs.put(a.name(), new AttributeDecl(a.name(), a.expr(), a.range()));
          } else {
            checks.unexpectedAttribute(a, where, allowed);
          }
        }
      }
    }
    Optional<BlockDecl> connection = Optional.empty();
    for (Body.Block nb : b.body().blocks()) {
      if (nb.type().equals("connection")) {
        if (connection.isPresent()) {
          checks.duplicateBlock(nb, connection.get());
        } else if (checks.labels(nb)) {
          connection = Optional.of(connection(nb));
        }
      } else {
        checks.unexpectedBlock(nb, where, Set.of("connection"));
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

  private BlockDecl connection(Body.Block b) {
    for (Body.Attribute a : b.body().attributes()) {
      if (!CONNECTION_ARGUMENTS.contains(a.name())) {
        checks.unexpectedAttribute(a, "a connection block", CONNECTION_ARGUMENTS);
      }
    }
    for (Body.Block nb : b.body().blocks()) {
      checks.unexpectedBlock(nb, "a connection block", Set.of());
    }
    ConnectionArguments.check(b.body(), d);
    return BlockDecl.of(b);
  }

  private BlockDecl lifecycle(Body.Block b) {
    for (Body.Attribute a : b.body().attributes()) {
      if (!LIFECYCLE_ARGUMENTS.contains(a.name())) {
        checks.unexpectedAttribute(a, "a lifecycle block", LIFECYCLE_ARGUMENTS);
      }
    }
    for (Body.Block nb : b.body().blocks()) {
      if (!nb.type().equals("precondition") && !nb.type().equals("postcondition")) {
        checks.unexpectedBlock(nb, "a lifecycle block", Set.of("precondition", "postcondition"));
      }
    }
    return BlockDecl.of(b);
  }
}
