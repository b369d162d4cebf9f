package dev.stagecraft.chaos.soak;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The workload's configurations. Each workspace has one shape (its index modulo {@link #SHAPES});
 * every resource is replaced when the variable {@code rev} changes (a trigger), and each of its
 * {@code local-exec} steps appends {@code <ISO instant> <rev>.<resource>.<step index>} to the
 * journal, so the token of every step of every run is unique (each run gets a new {@code rev}).
 */
final class SoakConfigs {
  static final int SHAPES = 3;

  private SoakConfigs() {}

  /** A resource of a shape and how many local-exec steps it has. */
  record Resource(String address, String name, int steps) {}

  /** A shape: its main.tf and its resources. */
  record Shape(String name, String mainTf, List<Resource> resources) {

    /** The tokens of a run with this {@code rev}, with the step ids the executor reports. */
    List<String> manifestLines(String rev, String runId) {
      List<String> lines = new ArrayList<>();
      for (Resource r : resources) {
        String actionId = runId + "/" + r.address();
        for (int i = 0; i < r.steps(); i++) {
          lines.add(
              rev + "." + r.name() + "." + i + " " + runId + " " + actionId + " " + actionId + "#"
                  + i + " once");
        }
      }
      return lines;
    }
  }

  static Shape shape(int index, Path journal) {
    return switch (index % SHAPES) {
      case 0 -> chain(journal);
      case 1 -> fanOut(journal);
      default -> multiStep(journal);
    };
  }

  private static String step(String name, int index, Path journal, String after) {
    return """
          provisioner "local-exec" {
            command = "echo $(date -u +%%Y-%%m-%%dT%%H:%%M:%%S.%%3NZ) ${var.rev}.%s.%d >> %s%s"
          }
        """
        .formatted(name, index, journal, after.isEmpty() ? "" : "; " + after);
  }

  private static String nullResource(String name, String dependsOn, Path journal, String after) {
    return """
        resource "null_resource" "%s" {
          triggers = { rev = var.rev }
        %s%s}
        """
        .formatted(
            name,
            dependsOn.isEmpty() ? "" : "  depends_on = [" + dependsOn + "]\n",
            step(name, 0, journal, after));
  }

  private static final String VARIABLE = "variable \"rev\" {\n  type = string\n}\n";

  /** a → b → c, one step each. */
  private static Shape chain(Path journal) {
    String tf =
        VARIABLE
            + nullResource("a", "", journal, "sleep 0.3")
            + nullResource("b", "null_resource.a", journal, "sleep 0.3")
            + nullResource("c", "null_resource.b", journal, "");
    return new Shape(
        "chain",
        tf,
        List.of(
            new Resource("null_resource.a", "a", 1),
            new Resource("null_resource.b", "b", 1),
            new Resource("null_resource.c", "c", 1)));
  }

  /** root, then x, y and z at once. */
  private static Shape fanOut(Path journal) {
    String tf =
        VARIABLE
            + nullResource("root", "", journal, "")
            + nullResource("x", "null_resource.root", journal, "sleep 0.5")
            + nullResource("y", "null_resource.root", journal, "sleep 0.5")
            + nullResource("z", "null_resource.root", journal, "");
    return new Shape(
        "fan-out",
        tf,
        List.of(
            new Resource("null_resource.root", "root", 1),
            new Resource("null_resource.x", "x", 1),
            new Resource("null_resource.y", "y", 1),
            new Resource("null_resource.z", "z", 1)));
  }

  /** One stateful_provisioning keyed by rev with two steps, the second slow. */
  private static Shape multiStep(Path journal) {
    String tf =
        VARIABLE
            + """
            resource "stateful_provisioning" "svc" {
              state_key = var.rev
            %s%s}
            """
                .formatted(step("svc", 0, journal, ""), step("svc", 1, journal, "sleep 1.5"));
    return new Shape(
        "multi-step", tf, List.of(new Resource("stateful_provisioning.svc", "svc", 2)));
  }
}
