package dev.stagecraft.chaos.soak;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The workload's configurations. Each workspace has one shape (its index modulo {@link #SHAPES});
 * every resource is replaced when the variable {@code rev} changes (a trigger), and each of its
 * {@code local-exec} steps appends {@code <ISO instant> <rev>.<resource>.<step index>} to the
 * journal, so the token of every step of every run is unique (each run gets a new {@code rev}).
 * With SSH hosts ({@link SoakNetwork.SshHost}) a fourth shape runs {@code remote-exec} steps on
 * them through their proxies, each appending its token to that host's own journal.
 */
final class SoakConfigs {
  static final int SHAPES = 3;

  private SoakConfigs() {}

  /** A resource of a shape and how many local-exec steps it has. */
  record Resource(String address, String name, int steps) {}

  /**
   * A shape: its main.tf, its resources and the variables every run gets besides {@code rev} (the
   * SSH private keys, declared sensitive in main.tf).
   */
  record Shape(
      String name, String mainTf, List<Resource> resources, Map<String, String> variables) {

    Shape(String name, String mainTf, List<Resource> resources) {
      this(name, mainTf, resources, Map.of());
    }

    /** The variables of a run with this {@code rev}. */
    Map<String, String> variables(String rev) {
      Map<String, String> all = new HashMap<>(variables);
      all.put("rev", rev);
      return all;
    }

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

  /**
   * As {@link #shape(int, Path)} with SSH hosts: by index modulo 4, chain, remote, fan-out,
   * multi-step; without hosts, the local shapes only.
   */
  static Shape shape(int index, Path journal, List<SoakNetwork.SshHost> ssh) {
    if (ssh.isEmpty()) {
      return shape(index, journal);
    }
    return switch (index % 4) {
      case 0 -> chain(journal);
      case 1 -> remote(ssh);
      case 2 -> fanOut(journal);
      default -> multiStep(journal);
    };
  }

  /**
   * One resource per SSH host, each with one {@code remote-exec} step that journals its token on
   * that host and then runs for 2 s (so a cut connection often finds it under way). The connection
   * goes through the host's proxy, its host key pinned, the private key from a sensitive variable.
   */
  static Shape remote(List<SoakNetwork.SshHost> ssh) {
    StringBuilder tf = new StringBuilder(VARIABLE);
    List<Resource> resources = new ArrayList<>();
    Map<String, String> variables = new HashMap<>();
    for (int i = 0; i < ssh.size(); i++) {
      SoakNetwork.SshHost h = ssh.get(i);
      String name = "ssh" + (i + 1);
      String key = "ssh_key_" + (i + 1);
      variables.put(key, h.privateKey());
      tf.append(
          """
          variable "%s" {
            type      = string
            sensitive = true
          }

          resource "null_resource" "%s" {
            triggers = { rev = var.rev }
            connection {
              type        = "ssh"
              host        = "%s"
              port        = %d
              user        = "%s"
              private_key = var.%s
              host_key    = "%s"
              timeout     = "30s"
            }
            provisioner "remote-exec" {
              inline = [
                "echo $(date -u +%%Y-%%m-%%dT%%H:%%M:%%S.%%3NZ) ${var.rev}.%s.0 >> %s",
                "sleep 2",
              ]
            }
          }
          """
              .formatted(
                  key, name, h.host(), h.port(), h.user(), key, h.hostKey(), name, h.journal()));
      resources.add(new Resource("null_resource." + name, name, 1));
    }
    return new Shape("remote", tf.toString(), resources, variables);
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
