package dev.stagecraft.planner.plan;

import dev.stagecraft.language.config.BlockDecl;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.ResourceDecl;
import dev.stagecraft.language.diag.Diagnostics;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code moved} blocks of a configuration and Terraform's implied moves, applied to the prior
 * state before planning, as Terraform does ({@code refactoring.ApplyMoves}): the object the state
 * holds at a {@code from} address is planned at its {@code to} address, so nothing is destroyed or
 * provisioned again by a rename. Chained statements ({@code a → b}, {@code b → c}) move an object
 * all the way. A move whose destination already holds an object is not made (a warning lists it).
 *
 * <p>Implied moves: a resource that gained {@code count} takes its key-less instance as {@code
 * [0]}; one that lost {@code count} (and has no {@code for_each}) takes its {@code [0]} as its
 * key-less instance.
 */
final class Moves {
  private final List<MovedBlock> statements;

  private Moves(List<MovedBlock> statements) {
    this.statements = statements;
  }

  /** The prior state after the moves, and where each moved instance came from. */
  record Result(PriorState state, Map<String, String> previousAddresses) {}

  /** Whether an object may move from a resource of type {@code from} to one of type {@code to}. */
  static boolean canChangeType(String from, String to) {
    return from.equals("null_resource") && to.equals("terraform_data");
  }

  /** Reads and checks the configuration's moved blocks (errors added). */
  static Moves of(Configuration config, Diagnostics diagnostics) {
    List<MovedBlock> parsed = new ArrayList<>();
    for (BlockDecl b : config.moved()) {
      MovedBlock m = MovedBlock.parse(b, diagnostics);
      if (m != null) {
        parsed.add(m);
      }
    }
    Map<String, MovedBlock> byFrom = new HashMap<>();
    Map<String, MovedBlock> byTo = new HashMap<>();
    boolean ambiguous = false;
    for (MovedBlock m : parsed) {
      String noun = m.from().instance() ? "resource instance" : "resource";
      String shortNoun = m.from().instance() ? "instance" : "resource";
      MovedBlock sameFrom = byFrom.putIfAbsent(m.from().address(), m);
      if (sameFrom != null && !sameFrom.to().address().equals(m.to().address())) {
        ambiguous = true;
        diagnostics.error(
            "Ambiguous move statements",
            "A statement at %s declared that %s moved to %s, but this statement instead declares that it moved to %s. Each %s can move to only one destination %s."
                .formatted(sameFrom.range(), m.from(), sameFrom.to(), m.to(), noun, shortNoun),
            m.range());
      }
      MovedBlock sameTo = byTo.putIfAbsent(m.to().address(), m);
      if (sameTo != null && !sameTo.from().address().equals(m.from().address())) {
        ambiguous = true;
        diagnostics.error(
            "Ambiguous move statements",
            "A statement at %s declared that %s moved to %s, but this statement instead declares that %s moved there. Each %s can have moved from only one source %s."
                .formatted(sameTo.range(), sameTo.from(), m.to(), m.from(), noun, shortNoun),
            m.range());
      }
    }
    Moves moves = new Moves(parsed);
    if (!ambiguous) {
      moves.checkCycles(diagnostics);
    }
    return moves;
  }

  /** {@code later} must run after {@code earlier}: it picks up what {@code earlier} moved. */
  private static boolean follows(MovedBlock later, MovedBlock earlier) {
    MovedBlock.Endpoint from = later.from();
    MovedBlock.Endpoint to = earlier.to();
    if (from.instance() == to.instance()) {
      return from.address().equals(to.address());
    }
    // an instance moved out of a resource that another statement moved in
    return from.instance() && from.resource().equals(to.resource());
  }

  private void checkCycles(Diagnostics diagnostics) {
    Set<MovedBlock> reported = new LinkedHashSet<>();
    for (MovedBlock start : statements) {
      List<MovedBlock> cycle = cycleFrom(start, new ArrayList<>());
      if (cycle != null && reported.addAll(cycle)) {
        List<String> lines = new ArrayList<>();
        for (MovedBlock m : cycle) {
          lines.add("  - " + m.range() + ": " + m.from() + " → " + m.to());
        }
        Collections.sort(lines);
        diagnostics.error(
            "Cyclic dependency in move statements",
            "The following chained move statements form a cycle, and so there is no final"
                + " location to move objects to:\n"
                + String.join("\n", lines)
                + "\nA chain of move statements must end with an address that doesn't appear in"
                + " any other statements, and which typically also refers to an object still"
                + " declared in the configuration.",
            cycle.get(0).range());
      }
    }
  }

  private List<MovedBlock> cycleFrom(MovedBlock current, List<MovedBlock> path) {
    int seen = path.indexOf(current);
    if (seen >= 0) {
      return List.copyOf(path.subList(seen, path.size()));
    }
    path.add(current);
    for (MovedBlock next : statements) {
      if (follows(next, current)) {
        List<MovedBlock> cycle = cycleFrom(next, path);
        if (cycle != null) {
          return cycle;
        }
      }
    }
    path.remove(path.size() - 1);
    return null;
  }

  /** Statements in the order they are applied: each after those it follows. */
  private List<MovedBlock> ordered() {
    List<MovedBlock> out = new ArrayList<>();
    Set<MovedBlock> done = new LinkedHashSet<>();
    for (MovedBlock m : statements) {
      visit(m, done, out, new LinkedHashSet<>());
    }
    return out;
  }

  private void visit(MovedBlock m, Set<MovedBlock> done, List<MovedBlock> out, Set<MovedBlock> on) {
    if (done.contains(m) || !on.add(m)) {
      return;
    }
    for (MovedBlock earlier : statements) {
      if (earlier != m && follows(m, earlier)) {
        visit(earlier, done, out, on);
      }
    }
    done.add(m);
    out.add(m);
  }

  /**
   * Applies the moves (explicit, then implied) to {@code prior}; a move blocked by an object
   * already at its destination adds one warning listing every such move.
   */
  Result apply(PriorState prior, Configuration config, Diagnostics diagnostics) {
    Map<String, PriorInstance> instances = new TreeMap<>(prior.instances());
    Map<String, String> previous = new LinkedHashMap<>();
    List<String> blocked = new ArrayList<>();
    for (MovedBlock m : ordered()) {
      move(instances, previous, m, blocked);
    }
    for (MovedBlock m : implied(config, instances)) {
      move(instances, previous, m, new ArrayList<>());
    }
    if (!blocked.isEmpty()) {
      diagnostics.warning(
          "Unresolved resource instance address changes",
          "Stagecraft tried to adjust resource instance addresses in the prior state based on"
              + " moved blocks in the configuration, but some adjustments did not succeed due to"
              + " existing objects already at the intended addresses:\n"
              + String.join("\n", blocked)
              + "\nThe objects left at their old addresses are planned as if the moves did not"
              + " exist (to be destroyed when their resource is gone). If that is not what you"
              + " want, remove the objects in the way from the state first, then plan again.",
          null);
    }
    if (previous.isEmpty()) {
      return new Result(prior, Map.of());
    }
    return new Result(
        new PriorState(
            prior.serial(), prior.lineage(), instances, prior.document(), prior.openedOutputs()),
        previous);
  }

  private static void move(
      Map<String, PriorInstance> instances,
      Map<String, String> previous,
      MovedBlock m,
      List<String> blocked) {
    Map<String, String> destinations = new LinkedHashMap<>();
    for (String address : instances.keySet()) {
      String destination = m.from().destinationOf(address, m.to());
      if (destination != null) {
        destinations.put(address, destination);
      }
    }
    boolean occupied =
        m.from().instance() || m.from().module()
            ? destinations.values().stream().anyMatch(instances::containsKey)
            : instances.keySet().stream()
                .anyMatch(a -> InstanceKey.resourceOf(a).equals(m.to().resource()));
    if (destinations.isEmpty()) {
      return;
    }
    if (occupied) {
      destinations.forEach((from, to) -> blocked.add("  - " + from + " could not move to " + to));
      return;
    }
    destinations.forEach(
        (from, to) -> {
          PriorInstance moved = movedInstance(instances.remove(from), to);
          instances.put(to, moved);
          String origin = previous.remove(from);
          previous.put(to, origin == null ? from : origin);
        });
  }

  /** The instance at its new address; from null_resource to terraform_data, its new attributes. */
  private static PriorInstance movedInstance(PriorInstance i, String to) {
    String resource = InstanceKey.resourceOf(to);
    String type = resource.substring(0, resource.indexOf('.'));
    String name = resource.substring(type.length() + 1);
    Map<String, Object> attributes = i.attributes();
    List<List<Object>> sensitive = i.sensitivePaths();
    if (!i.type().equals(type)) {
      // terraform_data's move from null_resource: the id stays, triggers become triggers_replace
      attributes = new LinkedHashMap<>();
      attributes.put("id", i.attributes().get("id"));
      attributes.put("input", null);
      attributes.put("output", null);
      attributes.put("triggers_replace", i.attributes().get("triggers"));
      sensitive =
          sensitive.stream()
              .map(
                  p -> {
                    List<Object> path = new ArrayList<>(p);
                    if ("triggers".equals(path.get(0))) {
                      path.set(0, "triggers_replace");
                    }
                    return (List<Object>) path;
                  })
              .toList();
    }
    return new PriorInstance(
        to,
        type,
        name,
        attributes,
        i.dependencies(),
        i.tainted(),
        i.createBeforeDestroy(),
        i.skipDestroy(),
        sensitive);
  }

  /**
   * Terraform's implied moves for resources still declared: {@code type.name → type.name[0]} when
   * the resource now has {@code count}, {@code type.name[0] → type.name} when it has neither {@code
   * count} nor {@code for_each}; never where an explicit statement names the instance, nor onto an
   * instance the state holds.
   */
  private List<MovedBlock> implied(Configuration config, Map<String, PriorInstance> instances) {
    List<MovedBlock> out = new ArrayList<>();
    for (ResourceDecl r : config.resources()) {
      String bare = r.address();
      String first = bare + "[0]";
      boolean counted = r.count().isPresent();
      boolean single = !counted && r.forEach().isEmpty();
      String from = counted ? bare : single ? first : null;
      String to = counted ? first : bare;
      if (from == null
          || !instances.containsKey(from)
          || instances.containsKey(to)
          || mentioned(from)
          || mentioned(to)) {
        continue;
      }
      Object fromKey = counted ? null : 0;
      Object toKey = counted ? 0 : null;
      out.add(
          new MovedBlock(
              new MovedBlock.Endpoint(r.type(), r.name(), fromKey, true, r.range()),
              new MovedBlock.Endpoint(r.type(), r.name(), toKey, true, r.range()),
              r.range()));
    }
    return out;
  }

  private boolean mentioned(String address) {
    return statements.stream()
        .anyMatch(m -> m.from().address().equals(address) || m.to().address().equals(address));
  }

  /**
   * After planning: a statement whose {@code from} is still declared is an error, as in Terraform
   * ("Moved object still exists"): a resource block of that name, or, for an instance, one that its
   * resource's {@code count} / {@code for_each} still produces.
   */
  void checkNotDeclared(ConfigModel model, Plan plan, Diagnostics diagnostics) {
    for (MovedBlock m : statements) {
      ResourceDecl declared =
          m.from().module() ? inModule(model, m) : model.resource(m.from().resource());
      if (declared == null) {
        continue;
      }
      boolean stillThere =
          !m.from().instance()
              || m.from().module()
              || plan.action(m.from().address()).filter(a -> a.after() != null).isPresent();
      if (stillThere) {
        String noun = m.from().instance() ? "resource instance" : "resource";
        String shortNoun = m.from().instance() ? "instance" : "resource";
        diagnostics.error(
            "Moved object still exists",
            "This statement declares a move from %s, but that %s is still declared at %s. Change your configuration so that this %s will be declared as %s instead."
                .formatted(m.from(), noun, declared.range(), shortNoun, m.to()),
            m.range());
      }
    }
  }

  /** A resource the configuration still declares in the module {@code m} moves from, or null. */
  private static ResourceDecl inModule(ConfigModel model, MovedBlock m) {
    String path = m.from().name();
    boolean wholeCall = !m.from().instance() && !m.to().instance();
    for (ResourceDecl r : model.config().resources()) {
      if (r.name().startsWith(path + ".") || wholeCall && r.name().startsWith(path + "{")) {
        return r;
      }
    }
    return null;
  }
}
