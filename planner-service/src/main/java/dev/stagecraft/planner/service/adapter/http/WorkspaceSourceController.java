package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.clients.TokenVerifier.Principal;
import dev.stagecraft.planner.service.adapter.db.WorkspaceSourceStore;
import dev.stagecraft.planner.service.adapter.db.WorkspaceSourceStore.SourceView;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.GitSourceRules;
import dev.stagecraft.planner.service.source.RepositoryUrls;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Put;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A workspace's configuration source ({@code /api/v1/workspaces/{ws}/source}, docs/workspaces.md):
 * {@code GET} (any role) shows it, never its credentials; {@code PUT} (admin) sets a git source or,
 * with {@code {"kind":"upload"}}, goes back to uploaded configurations. Another tenant's workspace
 * is unknown: 404.
 */
@Controller("/api/v1/workspaces")
@ExecuteOn(TaskExecutors.BLOCKING)
public class WorkspaceSourceController {
  private final Access access;
  private final WorkspaceStore workspaces;
  private final WorkspaceSourceStore sources;

  public WorkspaceSourceController(
      Access access, WorkspaceStore workspaces, WorkspaceSourceStore sources) {
    this.access = access;
    this.workspaces = workspaces;
    this.sources = sources;
  }

  /**
   * A source: {@code kind} {@code git} (with {@code url}, one of {@code branch} and {@code tag},
   * optionally {@code directory}, {@code username}/{@code token} or {@code sshKey}, {@code
   * triggerOnAnyPath}) or {@code upload}.
   */
  public record SourceBody(
      @Nullable String kind,
      @Nullable String url,
      @Nullable String branch,
      @Nullable String tag,
      @Nullable String directory,
      @Nullable String username,
      @Nullable String token,
      @Nullable String sshKey,
      @Nullable Boolean triggerOnAnyPath) {
    @Override
    public String toString() {
      return "SourceBody[" + kind + ", " + RepositoryUrls.redacted(url) + ", (credentials)]";
    }
  }

  /** 200 {@code {"kind","url","ref","directory","credentials","triggerOnAnyPath",...}}. */
  @Get("/{ws}/source")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String ws) throws SQLException {
    Access.Decision d = access.require(request, Access.Role.READER, "read workspace sources");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    String tenant = ((Access.Allowed) d).principal().tenant();
    if (!known(tenant, ws)) {
      return notFound(ws);
    }
    return HttpResponse.ok(view(sources.view(tenant, ws)));
  }

  /** 200 the new source's view; 400 when it is not valid; 503 when credentials cannot be sealed. */
  @Put("/{ws}/source")
  public HttpResponse<?> put(
      HttpRequest<?> request, @PathVariable String ws, @Body @Nullable SourceBody body)
      throws SQLException {
    Access.Decision d = access.require(request, Access.Role.ADMIN, "change workspace sources");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    Principal principal = ((Access.Allowed) d).principal();
    String tenant = principal.tenant();
    if (!known(tenant, ws)) {
      return notFound(ws); // before looking at the body: another tenant's name is just unknown
    }
    String kind = body == null || body.kind() == null ? "" : body.kind();
    if (kind.equals("upload")) {
      sources.remove(tenant, ws);
      return HttpResponse.ok(view(Optional.empty()));
    }
    if (!kind.equals("git")) {
      return invalid(
          "Send {\"kind\": \"git\", \"url\": \"https://…\", \"branch\": \"main\"} or"
              + " {\"kind\": \"upload\"}; got kind '"
              + kind
              + "'.");
    }
    Optional<String> problem = check(body);
    if (problem.isPresent()) {
      return invalid(problem.get());
    }
    GitSource source =
        new GitSource(
            body.url().strip(),
            body.branch() != null
                ? GitSourceRules.branchRef(body.branch().strip())
                : GitSourceRules.tagRef(body.tag().strip()),
            GitSourceRules.normalDirectory(body.directory()),
            credentials(body),
            Boolean.TRUE.equals(body.triggerOnAnyPath()));
    try {
      sources.put(tenant, ws, source, principal.role() + "@" + tenant);
    } catch (WorkspaceSourceStore.CannotSeal e) {
      return ApiProblems.problem(
          HttpStatus.SERVICE_UNAVAILABLE, "Credentials cannot be stored", e.getMessage());
    }
    return HttpResponse.ok(view(sources.view(tenant, ws)));
  }

  /** What is wrong with a git source's body, for a 400; empty when nothing is. */
  static Optional<String> check(SourceBody body) {
    Optional<String> url = RepositoryUrls.problem(body.url());
    if (url.isPresent()) {
      return url;
    }
    boolean branch = body.branch() != null && !body.branch().isBlank();
    boolean tag = body.tag() != null && !body.tag().isBlank();
    if (branch == tag) {
      return Optional.of(
          "Name exactly one of \"branch\" (followed: a push to it starts runs) and \"tag\".");
    }
    String name = branch ? body.branch().strip() : body.tag().strip();
    String bare =
        name.startsWith(GitSourceRules.HEADS) || name.startsWith(GitSourceRules.TAGS)
            ? name.substring(name.indexOf('/', 5) + 1)
            : name;
    Optional<String> ref = GitSourceRules.nameProblem(branch ? "branch" : "tag", bare);
    if (ref.isPresent()) {
      return ref;
    }
    Optional<String> dir = GitSourceRules.directoryProblem(body.directory());
    if (dir.isPresent()) {
      return dir;
    }
    boolean token = body.token() != null && !body.token().isEmpty();
    boolean key = body.sshKey() != null && !body.sshKey().isEmpty();
    if (token && key) {
      return Optional.of("Send a \"token\" or an \"sshKey\", not both.");
    }
    boolean ssh = RepositoryUrls.isSsh(body.url());
    if (ssh && !key) {
      return Optional.of(
          "An ssh repository URL needs an \"sshKey\" (a deploy key: an OpenSSH private key"
              + " without a passphrase), or use the repository's https URL.");
    }
    if (key && !ssh) {
      return Optional.of(
          "An \"sshKey\" goes with an ssh URL (ssh://git@host/path.git or git@host:path.git);"
              + " for an https URL send a \"token\".");
    }
    if (token && ssh) {
      return Optional.of("A \"token\" goes with an https URL; an ssh URL takes an \"sshKey\".");
    }
    if (body.username() != null && !body.username().isEmpty() && !token) {
      return Optional.of("A \"username\" goes with a \"token\"; send the token too.");
    }
    return Optional.empty();
  }

  private static GitCredentials credentials(SourceBody body) {
    if (body.token() != null && !body.token().isEmpty()) {
      String user = body.username() == null || body.username().isBlank() ? null : body.username();
      return new GitCredentials.HttpsToken(user, body.token());
    }
    if (body.sshKey() != null && !body.sshKey().isEmpty()) {
      return new GitCredentials.SshKey(body.sshKey());
    }
    return new GitCredentials.None();
  }

  private boolean known(String tenant, String ws) throws SQLException {
    return ApiProblems.WORKSPACE.matcher(ws).matches() && workspaces.find(tenant, ws).isPresent();
  }

  private static Map<String, Object> view(Optional<SourceView> source) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (source.isEmpty()) {
      out.put("kind", "upload");
      return out;
    }
    SourceView s = source.get();
    out.put("kind", "git");
    out.put("url", s.url());
    out.put("ref", s.ref());
    out.put("directory", s.directory());
    out.put("credentials", s.credentials());
    out.put("triggerOnAnyPath", s.triggerOnAnyPath());
    out.put("updatedAt", s.updatedAt().toString());
    out.put("updatedBy", s.updatedBy());
    return out;
  }

  private static HttpResponse<?> invalid(String detail) {
    return ApiProblems.problem(HttpStatus.BAD_REQUEST, "Invalid source", detail);
  }

  private static HttpResponse<?> notFound(String ws) {
    return ApiProblems.problem(
        HttpStatus.NOT_FOUND, "Not Found", "There is no workspace " + ws + ".");
  }
}
