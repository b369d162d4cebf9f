package dev.stagecraft.planner.service.source;

import dev.stagecraft.planner.service.trigger.RunTrigger;
import dev.stagecraft.planner.service.trigger.TriggerSecrets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The push webhook ({@code POST /api/v1/hooks/push/{tenant}}, ADR 0078 item 7): tells the forge
 * from its headers, verifies the signature with the tenant's trigger secrets before anything of the
 * body is read, and starts one run ({@link PushRuns}) per workspace that follows the pushed
 * repository and branch and whose directory the push touched. Idempotent per delivery id (the
 * forge's delivery header; without one, the forge, ref and pushed commit). Thread-safe when its
 * ports are.
 */
public final class PushHook {
  /** The most bytes a push payload may have (the run trigger's limit). */
  public static final int MAX_BODY_BYTES = RunTrigger.MAX_BODY_BYTES;

  /** What came of one delivery. */
  public sealed interface Answer {}

  /** 401: the signature is missing or wrong; nothing was read or started. */
  public record Unauthorized(String reason) implements Answer {}

  /** 400: signed, but not a push payload that can be read. */
  public record Invalid(String reason) implements Answer {}

  /** 413: larger than {@link #MAX_BODY_BYTES}; nothing was read. */
  public record TooLarge(String reason) implements Answer {}

  /** 200: signed, but nothing to do (a ping, another event, a tag, a deleted branch). */
  public record Ignored(String reason) implements Answer {}

  /** 202: the runs started (or, replayed, started by this delivery before) and the skipped ones. */
  public record Handled(String delivery, List<StartedRun> runs, List<Skipped> skipped)
      implements Answer {}

  /** A workspace's run for this push. */
  public record StartedRun(String workspace, String run, boolean replayed) {}

  /** A workspace following the branch that got no run, and why. */
  public record Skipped(String workspace, String reason) {}

  private enum Forge {
    GITHUB,
    GITEA,
    GITLAB
  }

  private final TriggerSecrets secrets;
  private final WorkspaceSources sources;
  private final PushRuns runs;

  public PushHook(TriggerSecrets secrets, WorkspaceSources sources, PushRuns runs) {
    this.secrets = secrets;
    this.sources = sources;
    this.runs = runs;
  }

  /**
   * Handles one delivery.
   *
   * @param header the request's header of a (case-insensitive) name, null when absent
   */
  public Answer handle(String tenant, Function<String, String> header, byte[] body) {
    if (body.length > MAX_BODY_BYTES) {
      return new TooLarge(
          "The payload has "
              + body.length
              + " bytes, above the limit of "
              + MAX_BODY_BYTES
              + " bytes per push.");
    }
    Forge forge = forgeOf(header);
    if (forge == null) {
      return new Unauthorized(
          "Not a GitHub, Gitea or GitLab webhook: it has no X-GitHub-Event, X-Gitea-Event or"
              + " X-Gitlab-Event header.");
    }
    List<String> verifying = secrets.verifying(tenant);
    boolean signed =
        !verifying.isEmpty()
            && switch (forge) {
              case GITHUB ->
                  PushSignatures.github(verifying, body, header.apply("X-Hub-Signature-256"));
              case GITEA ->
                  PushSignatures.gitea(verifying, body, header.apply("X-Gitea-Signature"));
              case GITLAB -> PushSignatures.gitlab(verifying, header.apply("X-Gitlab-Token"));
            };
    if (!signed) {
      return new Unauthorized(
          "The "
              + (forge == Forge.GITLAB ? "secret token" : "signature")
              + " does not match a trigger secret of tenant "
              + tenant
              + ": set the webhook's secret to the tenant's trigger secret (issued by POST"
              + " /api/v1/hooks/secret).");
    }
    String event = eventOf(forge, header);
    boolean push = forge == Forge.GITLAB ? "push hook".equals(event) : "push".equals(event);
    if (!push) {
      return new Ignored("a " + event + " event starts nothing; only pushes do");
    }
    PushEvent pushed;
    try {
      pushed =
          switch (forge) {
            case GITHUB -> PushEvents.github(body);
            case GITEA -> PushEvents.gitea(body);
            case GITLAB -> PushEvents.gitlab(body);
          };
    } catch (PushEvents.NotAPush e) {
      return new Invalid(e.getMessage());
    }
    if (pushed.branch() == null) {
      return new Ignored("a push to " + pushed.ref() + " starts nothing; only branch pushes do");
    }
    if (pushed.deleted()) {
      return new Ignored("branch " + pushed.branch() + " was deleted: nothing to run");
    }
    return start(tenant, deliveryOf(forge, header, pushed), pushed);
  }

  private Answer start(String tenant, String delivery, PushEvent pushed) {
    List<StartedRun> started = new ArrayList<>();
    List<Skipped> skipped = new ArrayList<>();
    for (String ws : sources.following(tenant, pushed.repositoryUrls(), pushed.branch())) {
      GitSource source = sources.gitSourceOf(tenant, ws).orElse(null);
      if (source == null) {
        continue; // its source was removed meanwhile
      }
      if (!source.triggerOnAnyPath() && !pushed.touches(source.directory())) {
        skipped.add(
            new Skipped(
                ws,
                "the push changes nothing under "
                    + GitSourceRules.normalDirectory(source.directory())
                    + "/"));
        continue;
      }
      PushRuns.Outcome outcome;
      try {
        outcome = runs.start(tenant, ws, pushed.after(), delivery, pushed.message());
      } catch (RuntimeException e) {
        outcome = new PushRuns.Refused("the run could not be started: " + e.getMessage());
      }
      switch (outcome) {
        case PushRuns.Started s -> started.add(new StartedRun(ws, s.runId(), s.replayed()));
        case PushRuns.Refused r -> skipped.add(new Skipped(ws, r.reason()));
      }
    }
    return new Handled(delivery, started, skipped);
  }

  private static Forge forgeOf(Function<String, String> header) {
    // Gitea also sends X-GitHub-Event for compatibility: its own header decides first
    if (header.apply("X-Gitea-Event") != null) {
      return Forge.GITEA;
    }
    if (header.apply("X-Gitlab-Event") != null) {
      return Forge.GITLAB;
    }
    if (header.apply("X-GitHub-Event") != null) {
      return Forge.GITHUB;
    }
    return null;
  }

  private static String eventOf(Forge forge, Function<String, String> header) {
    String name =
        switch (forge) {
          case GITHUB -> "X-GitHub-Event";
          case GITEA -> "X-Gitea-Event";
          case GITLAB -> "X-Gitlab-Event";
        };
    return header.apply(name).strip().toLowerCase(Locale.ROOT);
  }

  private static String deliveryOf(Forge forge, Function<String, String> header, PushEvent p) {
    String name =
        switch (forge) {
          case GITHUB -> "X-GitHub-Delivery";
          case GITEA -> "X-Gitea-Delivery";
          case GITLAB -> "X-Gitlab-Event-UUID";
        };
    String sent = header.apply(name);
    if (sent != null && !sent.isBlank() && sent.length() <= 200) {
      return sent.strip();
    }
    return forge.name().toLowerCase(Locale.ROOT) + ":" + p.ref() + ":" + p.after();
  }

  /** The headers of a request by case-insensitive name (a helper for callers and tests). */
  public static Function<String, String> headers(Map<String, String> byName) {
    Map<String, String> lower = new HashMap<>();
    byName.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
    return name -> lower.get(name.toLowerCase(Locale.ROOT));
  }
}
