package dev.stagecraft.planner.plan;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * What differs between two plans, as a person needs to see it: the changes planned in one and not
 * the other, the changes whose actions, reasons, attributes, order or lifecycle flags differ, the
 * root outputs that differ, and the state, workspace or mode planned against. Two plans with the
 * same {@link Plan#digest} have no differences, and two with different digests have at least one.
 *
 * <p>No value is ever in the text: a difference names the attributes or outputs whose values
 * differ, not the values (a plan's JSON holds no sensitive value, and the other values are in the
 * plan's own rendering).
 *
 * @param differences in the order of the second plan's changes, then outputs
 */
public record PlanComparison(List<Difference> differences) {

  public PlanComparison {
    differences = List.copyOf(differences);
  }

  /**
   * One difference.
   *
   * @param subject what differs: an instance address, {@code output.NAME}, or {@code state}, {@code
   *     workspace}, {@code mode}, {@code format}, {@code order}
   * @param was what the first plan has there
   * @param now what the second plan has there
   */
  public record Difference(String subject, String was, String now) {
    public String text() {
      return subject + ": " + was + " -> " + now;
    }
  }

  /** What differs from {@code was} to {@code now}. */
  public static PlanComparison between(Plan was, Plan now) {
    return between(
        PlanCodec.decode(PlanCodec.encode(was)), PlanCodec.decode(PlanCodec.encode(now)));
  }

  /** What differs from {@code was} to {@code now}. */
  public static PlanComparison between(PlanDocument was, PlanDocument now) {
    List<Difference> out = new ArrayList<>();
    header(was, now, out);
    Map<String, PlanDocument.ResourceChange> before = byAddress(was);
    Map<String, PlanDocument.ResourceChange> after = byAddress(now);
    for (PlanDocument.ResourceChange n : now.resourceChanges()) {
      PlanDocument.ResourceChange w = before.get(n.address());
      if (w == null) {
        out.add(new Difference(n.address(), "not planned", action(n)));
      } else {
        resourceChange(w, n, was, now, out);
      }
    }
    for (PlanDocument.ResourceChange w : was.resourceChanges()) {
      if (!after.containsKey(w.address())) {
        out.add(new Difference(w.address(), action(w), "not planned"));
      }
    }
    outputs(was, now, out);
    if (out.isEmpty()
        && !was.resourceChanges().stream()
            .map(PlanDocument.ResourceChange::address)
            .toList()
            .equals(
                now.resourceChanges().stream()
                    .map(PlanDocument.ResourceChange::address)
                    .toList())) {
      out.add(new Difference("order", "the changes in one order", "the same changes in another"));
    }
    return new PlanComparison(out);
  }

  /** True when the two plans do the same. */
  public boolean same() {
    return differences.isEmpty();
  }

  /** One line per difference, each indented by two spaces; empty when the plans do the same. */
  public String describe() {
    return differences.stream().map(d -> "  " + d.text()).collect(Collectors.joining("\n"));
  }

  private static void header(PlanDocument was, PlanDocument now, List<Difference> out) {
    if (!Objects.equals(was.formatVersion(), now.formatVersion())
        || !Objects.equals(was.terraformVersion(), now.terraformVersion())
        || was.errored() != now.errored()) {
      out.add(new Difference("format", format(was), format(now)));
    }
    PlanDocument.Stagecraft w = was.stagecraft();
    PlanDocument.Stagecraft n = now.stagecraft();
    if (w == null || n == null) {
      if (w != n) {
        out.add(
            new Difference(
                "format",
                w == null ? "no Stagecraft fields" : "Stagecraft's fields",
                n == null ? "no Stagecraft fields" : "Stagecraft's fields"));
      }
      return;
    }
    if (!Objects.equals(w.workspace(), n.workspace())) {
      out.add(new Difference("workspace", quoted(w.workspace()), quoted(n.workspace())));
    }
    // an empty workspace has no lineage yet: the digest leaves it out for serial 0 too
    boolean lineageCounts = w.priorSerial() != 0 || n.priorSerial() != 0;
    if (w.priorSerial() != n.priorSerial()
        || (lineageCounts && !Objects.equals(w.priorLineage(), n.priorLineage()))) {
      out.add(new Difference("state", state(w), state(n)));
    }
    if (w.destroy() != n.destroy()) {
      out.add(new Difference("mode", mode(w), mode(n)));
    }
  }

  private static void resourceChange(
      PlanDocument.ResourceChange w,
      PlanDocument.ResourceChange n,
      PlanDocument was,
      PlanDocument now,
      List<Difference> out) {
    String address = n.address();
    sameChange(w, n, out);
    List<String> waitedBefore = waits(was, address);
    List<String> waitsNow = waits(now, address);
    if (!waitedBefore.equals(waitsNow)) {
      out.add(new Difference(address, waitsFor(waitedBefore), waitsFor(waitsNow)));
    }
    PlanDocument.LifecycleFlags lw = flags(was, address);
    PlanDocument.LifecycleFlags ln = flags(now, address);
    if (!lw.equals(ln)) {
      out.add(new Difference(address, lifecycle(lw), lifecycle(ln)));
    }
  }

  /** The differences of one resource change's own entry: action, reason, move, attributes. */
  private static void sameChange(
      PlanDocument.ResourceChange w, PlanDocument.ResourceChange n, List<Difference> out) {
    String address = n.address();
    boolean sameAction = w.change().actions() == n.change().actions() && w.reason() == n.reason();
    if (!sameAction) {
      out.add(new Difference(address, action(w), action(n)));
    }
    if (!Objects.equals(w.previousAddress(), n.previousAddress())) {
      out.add(new Difference(address, moved(w), moved(n)));
    }
    // another action has other values: the action says it; the same action with other values
    // names the attributes
    List<String> attributes = sameAction ? attributes(w, n) : List.of();
    if (!attributes.isEmpty()) {
      out.add(
          new Difference(
              address,
              "other values",
              "values that differ in " + String.join(", ", attributes) + " (not shown here)"));
    }
  }

  /**
   * What differs between the change documents ({@link Plan#changeDocuments}: a change's {@code
   * resource_changes} entry with its lifecycle flags and dependencies) of an approved plan and
   * those of the plan made again, by address (sorted): changes approved and no longer planned,
   * planned and not approved, and how the others differ. For a carried-on run's message
   * (docs/adr/0051), to say how the changes that {@link PlanJson#covers} does not cover differ;
   * this compares documents exactly (a value unknown when approved and known now is a difference
   * here).
   */
  public static PlanComparison betweenChangeDocuments(
      Map<String, String> approved, Map<String, String> planned) {
    List<Difference> out = new ArrayList<>();
    Set<String> addresses = new TreeSet<>(approved.keySet());
    addresses.addAll(planned.keySet());
    for (String address : addresses) {
      String a = approved.get(address);
      String p = planned.get(address);
      if (Objects.equals(a, p)) {
        continue;
      }
      ChangeDocument w = a == null ? null : ChangeDocument.read(a, "approved");
      ChangeDocument n = p == null ? null : ChangeDocument.read(p, "planned");
      if (w == null || n == null) {
        out.add(
            new Difference(
                address,
                w == null ? "not approved" : w.describe(),
                n == null ? "not planned" : n.describe()));
      } else if (w.change() == null || n.change() == null) {
        out.add(new Difference(address, w.describe(), n.describe()));
      } else {
        int before = out.size();
        sameChange(w.change(), n.change(), out);
        if (!w.dependencies().equals(n.dependencies())) {
          out.add(
              new Difference(
                  address,
                  "depends on " + listed(w.dependencies()),
                  "depends on " + listed(n.dependencies())));
        }
        if (!w.flags().equals(n.flags())) {
          out.add(new Difference(address, lifecycle(w.flags()), lifecycle(n.flags())));
        }
        if (out.size() == before) {
          out.add(new Difference(address, "an approved change", "another change document"));
        }
      }
    }
    return new PlanComparison(out);
  }

  /**
   * One change document read back; {@code change} null (and {@code problem} set) when unreadable.
   */
  private record ChangeDocument(
      PlanDocument.ResourceChange change,
      List<String> dependencies,
      PlanDocument.LifecycleFlags flags,
      String problem) {

    static ChangeDocument read(String json, String which) {
      try {
        JsonNode node = PlanCodec.MAPPER.readTree(json);
        List<String> dependencies = new ArrayList<>();
        node.path("dependencies").forEach(d -> dependencies.add(d.asText()));
        return new ChangeDocument(
            PlanDecoder.resourceChange(node, which),
            dependencies,
            new PlanDocument.LifecycleFlags(
                node.path("create_before_destroy").asBoolean(),
                node.path("skip_destroy").asBoolean()),
            null);
      } catch (JsonProcessingException | PlanCodec.InvalidPlanException e) {
        return new ChangeDocument(null, List.of(), null, e.getMessage());
      }
    }

    String describe() {
      return change == null
          ? "a change document that cannot be read (" + problem + ")"
          : action(change);
    }
  }

  private static String listed(List<String> addresses) {
    return addresses.isEmpty() ? "nothing" : String.join(", ", addresses);
  }

  /**
   * The attributes whose values, unknown marks, sensitive marks or replace paths differ, by name
   * (sorted); the identity fields (mode, type, provider) when those differ.
   */
  private static List<String> attributes(
      PlanDocument.ResourceChange w, PlanDocument.ResourceChange n) {
    Set<String> out = new TreeSet<>();
    PlanDocument.Change a = w.change();
    PlanDocument.Change b = n.change();
    differing(a.before(), b.before(), out);
    differing(a.after(), b.after(), out);
    differing(a.afterUnknown(), b.afterUnknown(), out);
    differing(a.beforeSensitive(), b.beforeSensitive(), out);
    differing(a.afterSensitive(), b.afterSensitive(), out);
    if (!canonical(a.replacePaths()).equals(canonical(b.replacePaths()))) {
      out.add("replace_paths");
    }
    if (!Objects.equals(w.mode(), n.mode())
        || !Objects.equals(w.type(), n.type())
        || !Objects.equals(w.name(), n.name())
        || !Objects.equals(w.moduleAddress(), n.moduleAddress())
        || !Objects.equals(canonical(w.index()), canonical(n.index()))
        || !Objects.equals(w.providerName(), n.providerName())) {
      out.add("(its resource: mode, type or provider)");
    }
    return List.copyOf(out);
  }

  private static void differing(Map<String, Object> a, Map<String, Object> b, Set<String> out) {
    Map<String, Object> x = a == null ? Map.of() : a;
    Map<String, Object> y = b == null ? Map.of() : b;
    if ((a == null) != (b == null) && x.isEmpty() && y.isEmpty()) {
      out.add("(the whole value)");
      return;
    }
    Set<String> keys = new TreeSet<>(x.keySet());
    keys.addAll(y.keySet());
    for (String k : keys) {
      if (x.containsKey(k) != y.containsKey(k)
          || !canonical(x.get(k)).equals(canonical(y.get(k)))) {
        out.add(k);
      }
    }
  }

  private static void outputs(PlanDocument was, PlanDocument now, List<Difference> out) {
    Set<String> names = new TreeSet<>(was.outputChanges().keySet());
    names.addAll(now.outputChanges().keySet());
    for (String name : names) {
      PlanDocument.Output w = was.outputChanges().get(name);
      PlanDocument.Output n = now.outputChanges().get(name);
      String subject = "output." + name;
      if (w == null || n == null) {
        out.add(
            new Difference(
                subject,
                w == null ? "not planned" : words(w.actions()),
                n == null ? "not planned" : words(n.actions())));
      } else if (w.actions() != n.actions()) {
        out.add(new Difference(subject, words(w.actions()), words(n.actions())));
      } else if (!canonical(w.before()).equals(canonical(n.before()))
          || !canonical(w.after()).equals(canonical(n.after()))
          || w.afterUnknown() != n.afterUnknown()
          || w.beforeSensitive() != n.beforeSensitive()
          || w.afterSensitive() != n.afterSensitive()) {
        out.add(
            new Difference(
                subject,
                words(w.actions()) + " " + outputValue(w),
                words(n.actions()) + " " + outputValue(n) + ", another value (not shown here)"));
      }
    }
  }

  private static String outputValue(PlanDocument.Output o) {
    if (o.sensitive()) {
      return "(sensitive)";
    }
    return o.afterUnknown() ? "(known after apply)" : "(known)";
  }

  private static Map<String, PlanDocument.ResourceChange> byAddress(PlanDocument d) {
    Map<String, PlanDocument.ResourceChange> out = new LinkedHashMap<>();
    d.resourceChanges().forEach(r -> out.put(r.address(), r));
    return out;
  }

  private static List<String> waits(PlanDocument d, String address) {
    return d.stagecraft() == null
        ? List.of()
        : d.stagecraft().waitFor().getOrDefault(address, List.of());
  }

  private static PlanDocument.LifecycleFlags flags(PlanDocument d, String address) {
    PlanDocument.LifecycleFlags none = new PlanDocument.LifecycleFlags(false, false);
    return d.stagecraft() == null ? none : d.stagecraft().lifecycle().getOrDefault(address, none);
  }

  /** {@code update}, {@code replace (delete, then create) because replace_because_tainted}. */
  static String action(PlanDocument.ResourceChange r) {
    String words = words(r.change().actions());
    return r.reason() == null ? words : words + " because " + r.reason().terraformName();
  }

  private static String words(ActionType t) {
    return switch (t) {
      case NO_OP -> "no change";
      case CREATE -> "create";
      case UPDATE -> "update";
      case DELETE_THEN_CREATE -> "replace (delete, then create)";
      case CREATE_THEN_DELETE -> "replace (create, then delete)";
      case DELETE -> "delete";
      case FORGET -> "forget (remove from state, not destroyed)";
      case FORGET_THEN_CREATE -> "replace (forget, then create)";
    };
  }

  private static String moved(PlanDocument.ResourceChange r) {
    return r.previousAddress() == null ? "not moved" : "moved from " + r.previousAddress();
  }

  private static String waitsFor(List<String> addresses) {
    return addresses.isEmpty() ? "waits for nothing" : "waits for " + String.join(", ", addresses);
  }

  private static String lifecycle(PlanDocument.LifecycleFlags f) {
    return "create_before_destroy = " + f.createBeforeDestroy() + ", destroy = " + !f.skipDestroy();
  }

  private static String state(PlanDocument.Stagecraft s) {
    return "planned against serial "
        + s.priorSerial()
        + (s.priorLineage() == null ? "" : " of lineage " + s.priorLineage());
  }

  private static String mode(PlanDocument.Stagecraft s) {
    return s.destroy() ? "destroy plan" : "plan";
  }

  private static String format(PlanDocument d) {
    return "format "
        + d.formatVersion()
        + " by "
        + d.terraformVersion()
        + (d.errored() ? " (errored)" : "");
  }

  private static String quoted(String s) {
    return s == null ? "none" : "\"" + s + "\"";
  }

  /**
   * The canonical JSON of a value: equal for equal values, whatever Java number types hold them.
   */
  private static String canonical(Object value) {
    return PlanCodec.write(value);
  }
}
