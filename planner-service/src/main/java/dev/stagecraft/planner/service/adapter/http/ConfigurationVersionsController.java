package dev.stagecraft.planner.service.adapter.http;

import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore;
import dev.stagecraft.planner.service.adapter.db.ConfigurationVersionStore.StoredVersion;
import dev.stagecraft.planner.service.adapter.db.WorkspaceStore;
import dev.stagecraft.planner.service.config.ConfigurationContent;
import dev.stagecraft.planner.service.run.UploadedFiles;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.PathVariable;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.QueryValue;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.io.ByteArrayInputStream;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configuration versions ({@code /api/v1/configuration-versions}): upload the files of a
 * configuration once — as a JSON map ({@code {"files": {...}, "supportFiles": {...}}}, the shape of
 * a run request) or as a tar.gz ({@code Content-Type: application/gzip}) — and start runs from its
 * id. Content-addressed (docs/runs.md): the same files give the same id. Deployer or admin to
 * upload; any role to read.
 */
@Controller("/api/v1/configuration-versions")
@ExecuteOn(TaskExecutors.BLOCKING)
public class ConfigurationVersionsController {
  private final Access access;
  private final ConfigurationVersionStore versions;
  private final WorkspaceStore workspaces;

  public ConfigurationVersionsController(
      Access access, ConfigurationVersionStore versions, WorkspaceStore workspaces) {
    this.access = access;
    this.versions = versions;
    this.workspaces = workspaces;
  }

  /** A configuration as a JSON map: configuration files as text, other files as base64. */
  public record FilesBody(
      @Nullable Map<String, String> files, @Nullable Map<String, String> supportFiles) {}

  /**
   * 201 the version (200 when the tenant had these files already). With {@code ?workspace=W} it
   * becomes the configuration of W's runs that name no configuration (docs/workspaces.md).
   */
  @Post(consumes = MediaType.APPLICATION_JSON)
  public HttpResponse<?> createFromJson(
      HttpRequest<?> request,
      @Body @Nullable FilesBody body,
      @Nullable @QueryValue String workspace)
      throws SQLException {
    Access.Decision d =
        access.require(request, Access.Role.DEPLOYER, "upload configuration versions");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    if (workspace != null && !ApiProblems.WORKSPACE.matcher(workspace).matches()) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + workspace
              + ".");
    }
    if (body == null || body.files() == null || body.files().isEmpty()) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "No configuration",
          "The request has no configuration files: send {\"files\": {\"main.tf\": \"...\"}} or a"
              + " tar.gz with Content-Type: application/gzip.");
    }
    ConfigurationContent content;
    try {
      content =
          new ConfigurationContent(
              body.files(), UploadedFiles.decode(body.files(), body.supportFiles()));
    } catch (UploadedFiles.TooLarge e) {
      return ApiProblems.tooLarge(e);
    } catch (UploadedFiles.InvalidUpload e) {
      return ApiProblems.problem(HttpStatus.BAD_REQUEST, "Invalid files", e.getMessage());
    }
    return store((Access.Allowed) d, content, workspace);
  }

  /** The same from a gzip-compressed tar archive of the configuration directory. */
  @Post(consumes = {"application/gzip", "application/x-gzip", "application/x-tar+gzip"})
  public HttpResponse<?> createFromTarGz(
      HttpRequest<?> request, @Body byte[] archive, @Nullable @QueryValue String workspace)
      throws SQLException {
    Access.Decision d =
        access.require(request, Access.Role.DEPLOYER, "upload configuration versions");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    if (workspace != null && !ApiProblems.WORKSPACE.matcher(workspace).matches()) {
      return ApiProblems.problem(
          HttpStatus.BAD_REQUEST,
          "Invalid workspace",
          "A workspace name is 1-90 letters, digits, '_', '.' or '-', starting with a letter or"
              + " digit; got "
              + workspace
              + ".");
    }
    ConfigurationContent content;
    try {
      content = ConfigurationContent.fromTarGz(new ByteArrayInputStream(archive));
      UploadedFiles.decode(content.files(), content.supportFilesBase64());
    } catch (ConfigurationContent.TooLarge | UploadedFiles.TooLarge e) {
      return ApiProblems.tooLarge(e);
    } catch (ConfigurationContent.InvalidArchive | UploadedFiles.InvalidUpload e) {
      return ApiProblems.problem(HttpStatus.BAD_REQUEST, "Invalid archive", e.getMessage());
    }
    return store((Access.Allowed) d, content, workspace);
  }

  @Get("/{id}")
  public HttpResponse<?> get(HttpRequest<?> request, @PathVariable String id) throws SQLException {
    Access.Decision d = access.require(request, Access.Role.READER, "read configuration versions");
    if (d instanceof Access.Refused r) {
      return r.response();
    }
    return versions
        .find(((Access.Allowed) d).principal().tenant(), id)
        .<HttpResponse<?>>map(v -> HttpResponse.ok(view(v, true)))
        .orElseGet(
            () ->
                ApiProblems.problem(
                    HttpStatus.NOT_FOUND,
                    "Not Found",
                    "There is no configuration version " + id + "."));
  }

  private HttpResponse<?> store(
      Access.Allowed caller, ConfigurationContent content, String workspace) throws SQLException {
    String tenant = caller.principal().tenant();
    boolean existed = versions.find(tenant, content.id()).isPresent();
    StoredVersion stored =
        versions.store(tenant, content, caller.principal().role() + "@" + tenant);
    if (workspace != null) {
      workspaces.uploaded(tenant, workspace, stored.id());
    }
    Map<String, Object> view = view(stored, false);
    if (workspace != null) {
      view.put("workspace", workspace);
    }
    return existed ? HttpResponse.ok(view) : HttpResponse.created(view);
  }

  private static Map<String, Object> view(StoredVersion v, boolean withContent) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("id", v.id());
    out.put("sizeBytes", v.sizeBytes());
    out.put("createdAt", v.createdAt());
    out.put("createdBy", v.createdBy());
    out.put(
        "files",
        withContent
            ? new TreeMap<>(v.content().files())
            : v.content().files().keySet().stream().sorted().toList());
    out.put("supportFiles", v.content().supportFiles().keySet().stream().sorted().toList());
    return out;
  }
}
