package dev.stagecraft.planner.service.console;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore.Workspace;
import dev.stagecraft.planner.service.console.PageModels.DiffAttribute;
import dev.stagecraft.planner.service.console.PageModels.DiffInstance;
import dev.stagecraft.planner.service.console.PageModels.DiffView;
import dev.stagecraft.planner.service.console.PageModels.HostKeyRow;
import dev.stagecraft.planner.service.console.PageModels.LockView;
import dev.stagecraft.planner.service.console.PageModels.QueueRow;
import dev.stagecraft.planner.service.console.PageModels.ResourceRow;
import dev.stagecraft.planner.service.console.PageModels.Settings;
import dev.stagecraft.planner.service.console.PageModels.VersionRow;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the workspace page's parts from what the API and the state and lock services answer (their
 * JSON), every value as the text the template prints. Pure functions; thread-safe.
 */
final class WorkspacePages {
  private WorkspacePages() {}

  static Settings settings(Workspace w) {
    return new Settings(w.autoApply(), w.parallelism(), w.coalescing(), w.stepTimeoutSeconds());
  }

  /** How the state service names a lock taken over Terraform's HTTP backend (BackendLocks). */
  static final String TERRAFORM_HOLDER = "terraform:";

  /**
   * The lock service's {@code GET …/lock} answer as the page shows it. The lock's id is the one the
   * state service's force-unlock takes: Terraform's lock ID for a lock taken over the HTTP backend,
   * else the lease's.
   */
  static LockView lock(JsonNode json) {
    List<QueueRow> queue = new ArrayList<>();
    for (JsonNode holder : json.path("queue")) {
      queue.add(new QueueRow(queue.size() + 1, holder.asText()));
    }
    boolean held = json.hasNonNull("lockId");
    String holder = text(json, "holder");
    return new LockView(
        held,
        holder,
        holder.startsWith(TERRAFORM_HOLDER)
            ? holder.substring(TERRAFORM_HOLDER.length())
            : text(json, "lockId"),
        text(json, "acquiredAt"),
        text(json, "leaseExpiresAt"),
        queue,
        null);
  }

  /** A lock that could not be read, and why. */
  static LockView lockUnavailable(String why) {
    return new LockView(false, "", "", "", "", List.of(), why);
  }

  /** The state versions (the state service lists them oldest first), newest first. */
  static List<VersionRow> versions(JsonNode json) {
    List<VersionRow> rows = new ArrayList<>();
    for (JsonNode v : json) {
      rows.add(
          0,
          new VersionRow(
              text(v, "serial"),
              text(v, "time"),
              text(v, "type"),
              text(v, "runId"),
              text(v, "actor"),
              text(v, "digest")));
    }
    return rows;
  }

  /** The state service's diff answer as the page shows it. */
  static DiffView diff(long from, long to, JsonNode json) {
    List<DiffInstance> instances = new ArrayList<>();
    for (JsonNode i : json.path("instances")) {
      List<DiffAttribute> attributes = new ArrayList<>();
      for (JsonNode a : i.path("attributes")) {
        attributes.add(attribute(a));
      }
      List<String> fields = new ArrayList<>();
      i.path("fields").forEach(f -> fields.add(f.asText()));
      instances.add(
          new DiffInstance(
              text(i, "address"), text(i, "change"), attributes, String.join(", ", fields)));
    }
    List<DiffAttribute> outputs = new ArrayList<>();
    for (JsonNode o : json.path("outputs")) {
      outputs.add(attribute(o));
    }
    return new DiffView(Long.toString(from), Long.toString(to), instances, outputs, null);
  }

  /** A diff that could not be made, and why. */
  static DiffView diffRefused(long from, long to, String why) {
    return new DiffView(Long.toString(from), Long.toString(to), List.of(), List.of(), why);
  }

  /**
   * The managed resource instances of a Terraform v4 state (null: no state yet), in state order,
   * addressed as Terraform addresses them ({@code module.m.type.name["key"]}) — the address the
   * API's taint and untaint take.
   */
  static List<ResourceRow> resources(JsonNode state) {
    List<ResourceRow> rows = new ArrayList<>();
    if (state == null) {
      return rows;
    }
    for (JsonNode resource : state.path("resources")) {
      if ("data".equals(resource.path("mode").asText())) {
        continue; // a data source is read again by every plan: nothing to taint
      }
      String module = resource.hasNonNull("module") ? resource.path("module").asText() + "." : "";
      String type = text(resource, "type");
      String base = module + type + "." + text(resource, "name");
      for (JsonNode instance : resource.path("instances")) {
        rows.add(
            new ResourceRow(
                base + indexSuffix(instance.get("index_key")),
                type,
                "tainted".equals(instance.path("status").asText())));
      }
    }
    return rows;
  }

  private static String indexSuffix(JsonNode key) {
    if (key == null || key.isNull()) {
      return "";
    }
    if (key.isNumber()) {
      return "[" + key.asText() + "]";
    }
    return "[\"" + key.asText().replace("\\", "\\\\").replace("\"", "\\\"") + "\"]";
  }

  /**
   * The API's {@code GET /api/v1/known-hosts?workspace=W} answer: the tenant's known hosts and the
   * keys the workspace trusted on first use.
   */
  static List<HostKeyRow> hostKeys(JsonNode json) {
    List<HostKeyRow> rows = new ArrayList<>();
    for (JsonNode k : json.path("keys")) {
      boolean firstUse = "first-use".equals(text(k, "source"));
      String by = text(k, "actor");
      if (by.isEmpty() && !text(k, "runId").isEmpty()) {
        by = "run " + text(k, "runId");
      }
      rows.add(
          new HostKeyRow(
              text(k, "host"),
              text(k, "port"),
              text(k, "fingerprint"),
              firstUse ? "trusted on first use" : "known host (whole tenant)",
              firstUse ? "workspace" : "tenant",
              text(k, "createdAt"),
              by));
    }
    return rows;
  }

  private static DiffAttribute attribute(JsonNode a) {
    return new DiffAttribute(text(a, "name"), value(a.get("before")), value(a.get("after")));
  }

  /** A value as Terraform's JSON shows it; empty when absent. Masked values are already text. */
  private static String value(JsonNode v) {
    if (v == null || v.isNull()) {
      return "";
    }
    return v.isTextual() ? v.asText() : v.toString();
  }

  private static String text(JsonNode json, String field) {
    JsonNode v = json.get(field);
    return v == null || v.isNull() ? "" : v.asText();
  }
}
