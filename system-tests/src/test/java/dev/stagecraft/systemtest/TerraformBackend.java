package dev.stagecraft.systemtest;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Requests as Terraform's HTTP backend client sends them to a stack's state service ({@code
 * /tf/v1/workspaces/{ws}...}, basic auth with the stack's token), for tests that take a workspace's
 * lock or read its state the way a Terraform user would.
 */
final class TerraformBackend {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private TerraformBackend() {}

  /** {@code method} on {@code /tf/v1/workspaces/<ws><path>} with {@code body} (may be empty). */
  static HttpResponse<String> call(
      SharedStack stack, String method, String ws, String path, String body) throws Exception {
    String basic =
        Base64.getEncoder()
            .encodeToString(("stagecraft:" + stack.token()).getBytes(StandardCharsets.UTF_8));
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create(stack.stack().info().state() + "/tf/v1/workspaces/" + ws + path))
            .header("Authorization", "Basic " + basic)
            .header("Content-Type", "application/json")
            .method(method, HttpRequest.BodyPublishers.ofString(body))
            .build();
    return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** A LockInfo body as Terraform sends with LOCK and UNLOCK, with lock id {@code id}. */
  static String lockInfo(String id) throws Exception {
    Map<String, Object> info = new LinkedHashMap<>();
    info.put("ID", id);
    info.put("Operation", "OperationTypeApply");
    info.put("Info", "");
    info.put("Who", "test@ci");
    info.put("Version", "1.5.7");
    info.put("Created", Instant.now().toString());
    info.put("Path", "");
    return JSON.writeValueAsString(info);
  }
}
