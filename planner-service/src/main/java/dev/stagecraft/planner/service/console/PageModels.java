package dev.stagecraft.planner.service.console;

import java.util.List;

/**
 * The console's page models: plain records holding exactly what a template prints, every value a
 * string the template escapes (jte's {@code Html} content type escapes each {@code ${...}}). No
 * logic lives in templates beyond choosing what to show.
 */
public final class PageModels {
  private PageModels() {}

  /**
   * What every page's frame shows.
   *
   * @param tenant null when signed out
   * @param csrf the session's CSRF token for the forms on the page; null when signed out
   */
  public record Chrome(String title, String tenant, String role, String csrf, String section) {
    public boolean signedIn() {
      return tenant != null;
    }
  }

  /** The sign-in form. */
  public record SignInPage(Chrome chrome, String error) {}

  /** A page that only says something: not found, forbidden, a refused action. */
  public record MessagePage(Chrome chrome, String heading, String detail, String backHref) {}

  /** The runs list and its live part. */
  public record RunsPage(
      Chrome chrome,
      String workspace,
      String status,
      String liveQuery,
      Counts counts,
      List<RunRow> rows,
      String error) {}

  /** How many of the tenant's runs are active, queued and waiting for approval. */
  public record Counts(int active, int queued, int waiting) {}

  /** One run in the list. */
  public record RunRow(
      String id,
      String href,
      String workspace,
      String status,
      String message,
      String createdAt,
      String requestedBy) {}

  /** One run. */
  public record RunPage(
      Chrome chrome,
      String id,
      String workspace,
      String status,
      boolean terminal,
      String message,
      String requestedBy,
      String approvedBy,
      String source,
      List<String> variableSources,
      String planDigest,
      String planText,
      List<TransitionRow> transitions,
      Decisions decisions,
      String notice,
      String traceId) {}

  /** A transition of a run, with its time. */
  public record TransitionRow(String status, String at, String message) {}

  /**
   * Which decisions the page offers: none for a reader (the server refuses them anyway); approve
   * and discard only while the run waits for approval; cancel until it ends.
   */
  public record Decisions(boolean approve, boolean discard, boolean cancel) {
    public boolean any() {
      return approve || discard || cancel;
    }
  }

  /**
   * A workspace: its settings (a form for an admin), its lock and queue, its state versions (with
   * rollback for an admin) and, when two are picked, the diff between them, the resources in its
   * state (taint / untaint for an admin) and its known hosts (remove for an admin).
   *
   * @param notice a refused action's reason, or null
   */
  public record WorkspacePage(
      Chrome chrome,
      String name,
      Settings settings,
      boolean admin,
      LockView lock,
      List<VersionRow> versions,
      String versionsNote,
      DiffView diff,
      Listed<ResourceRow> resources,
      Listed<HostKeyRow> hostKeys,
      String notice) {}

  /**
   * Rows a service answered, or why there are none to show.
   *
   * @param note why the rows could not be read, or null
   */
  public record Listed<T>(List<T> rows, String note) {
    public static <T> Listed<T> of(List<T> rows) {
      return new Listed<>(rows, null);
    }

    public static <T> Listed<T> unavailable(String why) {
      return new Listed<>(List.of(), why);
    }
  }

  /** A managed resource instance in the workspace's current state. */
  public record ResourceRow(String address, String type, boolean tainted) {}

  /**
   * A host key a run of the workspace enforces: one of the tenant's known hosts ({@code tenant}
   * scope) or the key the workspace trusted on first use ({@code workspace} scope).
   */
  public record HostKeyRow(
      String host,
      String port,
      String fingerprint,
      String source,
      String scope,
      String createdAt,
      String addedBy) {}

  /**
   * Asks an admin to confirm a rollback: the version it writes again and what that changes in the
   * current state.
   */
  public record RollbackPage(
      Chrome chrome, String workspace, String serial, String current, DiffView changes) {}

  /** A workspace's settings as the API holds them. */
  public record Settings(
      boolean autoApply, int parallelism, boolean coalescing, int stepTimeoutSeconds) {}

  /**
   * The workspace lock as the lock service shows it.
   *
   * @param unavailable why the lock could not be read, or null
   */
  public record LockView(
      boolean held,
      String holder,
      String lockId,
      String acquiredAt,
      String leaseExpiresAt,
      List<QueueRow> queue,
      String unavailable) {}

  /** One waiter in the lock's FIFO queue, 1 first. */
  public record QueueRow(int position, String holder) {}

  /** One state version. */
  public record VersionRow(
      String serial, String time, String type, String runId, String actor, String digest) {}

  /**
   * The difference between two state versions (sensitive values already masked by the state
   * service).
   *
   * @param error why the diff could not be made, or null
   */
  public record DiffView(
      String from,
      String to,
      List<DiffInstance> instances,
      List<DiffAttribute> outputs,
      String error) {}

  /** An instance added, removed or changed, with its attribute-level changes. */
  public record DiffInstance(
      String address, String change, List<DiffAttribute> attributes, String otherFields) {}

  /** An attribute (or output) before and after; empty when absent on that side. */
  public record DiffAttribute(String name, String before, String after) {}

  /**
   * The tenant page: its tokens (an admin's), a secret shown once after it was made, and the
   * trigger endpoints with examples.
   *
   * @param shownOnce a token or trigger secret just made (shown only now), or null
   * @param tokensNote why the tokens are not listed, or null
   */
  public record TenantPage(
      Chrome chrome,
      boolean admin,
      List<TokenRow> tokens,
      String tokensNote,
      String shownOnceLabel,
      String shownOnce,
      String baseUrl,
      String notice) {}

  /** One of the tenant's API tokens. */
  public record TokenRow(
      String id, String role, String description, String createdAt, String revokedAt) {
    public boolean active() {
      return revokedAt.isEmpty();
    }
  }
}
