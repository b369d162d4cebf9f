package dev.stagecraft.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stagecraft.devstack.DevStackLayout;
import dev.stagecraft.devstack.StackCredentials;
import dev.stagecraft.devstack.StackService;
import java.io.BufferedWriter;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * "One copy" of a 100 MiB state document (ADR 0022): a state-service process of its own, started
 * from the packaged jar like the dev stack starts it, on the shared stack's PostgreSQL and lock
 * service, but with a heap of {@value #HEAP_MIB} MiB — less than two copies of the document (200
 * MiB) however small the idle service is; its live heap after a full GC is measured (17 MiB when
 * this was written) so one copy beside it would fit. It exits on the first {@code
 * OutOfMemoryError}. A 100 MiB document pushed over the Terraform HTTP backend (streamed from a
 * file) must be stored, and pulled back (streamed to a digest) byte-identical: same MD5 as the
 * file, and as the {@code Content-MD5} the service sends. A push or a pull that held the document
 * twice — or once plus its parsed form — cannot fit and fails the test.
 */
class LargeStateDocumentTest {
  static final int HEAP_MIB = 160;
  static final int DOCUMENT_MIB = 100;

  static SharedStack stack;
  static Process service;
  static String url;
  static Path dir;

  @BeforeAll
  static void start() throws Exception {
    stack = SharedStack.get();
    dir = Files.createTempDirectory(stack.root, "large-state-");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    url = "http://127.0.0.1:" + port;
    // another build of the service can be checked with -Dstagecraft.state-jar=... (e.g. one that
    // buffers the body, to see this test fail)
    Path jar =
        Path.of(
            System.getProperty(
                "stagecraft.state-jar",
                SharedStack.repoRoot()
                    .resolve("state-service/target/state-service-app.jar")
                    .toString()));
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    ProcessHandle.current().info().command().orElse("java"),
                    "-Xmx" + HEAP_MIB + "m",
                    "-XX:+ExitOnOutOfMemoryError",
                    "-jar",
                    jar.toString()))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("state-service.log").toFile());
    builder.environment().keySet().removeIf(k -> k.startsWith("STAGECRAFT_"));
    Map<String, String> env = new HashMap<>();
    env.put("STAGECRAFT_PORT", Integer.toString(port));
    env.putAll(stack.stack().kafkaEnv(StackService.STATE));
    env.putAll(StackCredentials.read(new DevStackLayout(stack.dataDir)).env(StackService.STATE));
    env.put("STAGECRAFT_INSTANCE_ID", "state-large-documents");
    env.putAll(stack.stack().databaseEnv());
    env.put("STAGECRAFT_LOCK_URL", stack.stack().info().lock());
    env.put("STAGECRAFT_STATE_UPLOAD_DIR", dir.resolve("uploads").toString());
    builder.environment().putAll(env);
    service = builder.start();
    HttpClient client = HttpClient.newHttpClient();
    await()
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptions()
        .until(
            () -> {
              assertThat(service.isAlive()).as("state-service exited; see its log").isTrue();
              return client
                      .send(
                          HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            });
  }

  @AfterAll
  static void stop() throws Exception {
    if (service != null) {
      service.destroy();
      service.onExit().get();
    }
  }

  /**
   * The idle service's live heap in MiB: {@code jcmd GC.run}, then the "used" of {@code jcmd
   * GC.heap_info}.
   */
  static long liveHeapMib() throws Exception {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    run(List.of(jcmd, Long.toString(service.pid()), "GC.run"));
    String info = run(List.of(jcmd, Long.toString(service.pid()), "GC.heap_info"));
    java.util.regex.Matcher used = java.util.regex.Pattern.compile("used (\\d+)K").matcher(info);
    assertThat(used.find()).as(info).isTrue();
    return Long.parseLong(used.group(1)) / 1024;
  }

  static String run(List<String> command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    return out;
  }

  @Test
  void aJsonEndpointStillRefusesABodyLargerThanTheBufferLimit() throws Exception {
    byte[] body = new byte[11 << 20];
    java.util.Arrays.fill(body, (byte) ' ');
    body[0] = '{';
    body[body.length - 1] = '}';
    HttpResponse<String> refused =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url + "/api/v1/workspaces/limits/lock"))
                    .header("Authorization", "Bearer " + stack.token())
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(413);
  }

  @Test
  void pushesAndPullsA100MibStateWithAHeapTooSmallForTwoCopies() throws Exception {
    long idle = liveHeapMib();
    org.slf4j.LoggerFactory.getLogger(LargeStateDocumentTest.class)
        .info("idle state-service live heap: {} MiB of {} MiB", idle, HEAP_MIB);
    assertThat(idle + 2L * DOCUMENT_MIB)
        .as("the heap cannot hold two copies beside the idle service")
        .isGreaterThan(HEAP_MIB);
    Path document = dir.resolve("state.json");
    String lineage = UUID.randomUUID().toString();
    writeDocument(document, lineage, DOCUMENT_MIB);
    long size = Files.size(document);
    assertThat(size).isGreaterThan(DOCUMENT_MIB * 1024L * 1024L);
    String md5 = md5(Files.newInputStream(document));
    String ws = "large-" + UUID.randomUUID().toString().substring(0, 8);
    String auth =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("stagecraft:" + stack.token()).getBytes(StandardCharsets.UTF_8));
    HttpClient client = HttpClient.newBuilder().build();

    HttpResponse<String> pushed =
        client.send(
            HttpRequest.newBuilder(URI.create(url + "/tf/v1/workspaces/" + ws + "/state"))
                .header("Authorization", auth)
                .header("Content-Type", "application/json")
                .header("Content-MD5", md5)
                .timeout(Duration.ofMinutes(5))
                .POST(HttpRequest.BodyPublishers.ofFile(document))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(200);
    assertThat(pushed.body()).contains("\"serial\":7");

    HttpResponse<InputStream> pulled =
        client.send(
            HttpRequest.newBuilder(URI.create(url + "/tf/v1/workspaces/" + ws + "/state"))
                .header("Authorization", auth)
                .timeout(Duration.ofMinutes(5))
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(pulled.statusCode()).isEqualTo(200);
    assertThat(pulled.headers().firstValue("Content-MD5")).contains(md5);
    assertThat(md5(pulled.body())).as("the pulled bytes are the pushed bytes").isEqualTo(md5);
    assertThat(service.isAlive()).as("state-service survived").isTrue();
  }

  /**
   * The two ways a push arrives (ADR 0031), over HTTP into the service's process: without a {@code
   * Content-Length} (chunked) the body is spooled to a file and stored in {@code
   * state_documents.content}; with one it is streamed into a {@code document_contents} row while it
   * is validated — and a wrong {@code Content-MD5} then stores nothing (no content row; the pull
   * still sends the earlier state). Both pull back byte for byte.
   */
  @Test
  void aChunkedPushIsSpooledAPushWithALengthIsStreamedAndARefusedOneStoresNothing()
      throws Exception {
    String lineage = UUID.randomUUID().toString();
    Path chunked = dir.resolve("chunked.json");
    writeDocument(chunked, lineage, 6, 7);
    Path streamed = dir.resolve("streamed.json");
    writeDocument(streamed, lineage, 6, 8);
    String chunkedMd5 = md5(Files.newInputStream(chunked));
    String streamedMd5 = md5(Files.newInputStream(streamed));
    String ws = "two-ways-" + UUID.randomUUID().toString().substring(0, 8);
    URI state = URI.create(url + "/tf/v1/workspaces/" + ws + "/state");
    String auth =
        "Basic "
            + Base64.getEncoder()
                .encodeToString(("stagecraft:" + stack.token()).getBytes(StandardCharsets.UTF_8));
    HttpClient client = HttpClient.newHttpClient();

    HttpResponse<String> first =
        client.send(
            HttpRequest.newBuilder(state)
                .header("Authorization", auth)
                .header("Content-MD5", chunkedMd5)
                // a stream of unknown length: sent chunked, without Content-Length
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> open(chunked)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
    assertThat(documentRows(ws, "content IS NOT NULL")).as("spooled into content").isEqualTo(1);
    assertThat(pulledMd5(client, state, auth)).isEqualTo(chunkedMd5);

    HttpResponse<String> corrupted =
        client.send(
            HttpRequest.newBuilder(state)
                .header("Authorization", auth)
                .header("Content-MD5", chunkedMd5)
                .POST(HttpRequest.BodyPublishers.ofFile(streamed))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(corrupted.statusCode()).as(corrupted.body()).isEqualTo(400);
    assertThat(corrupted.body()).contains("does not match the body received");
    assertThat(contentRows(ws)).as("nothing stored").isZero();
    assertThat(pulledMd5(client, state, auth)).isEqualTo(chunkedMd5);

    HttpResponse<String> second =
        client.send(
            HttpRequest.newBuilder(state)
                .header("Authorization", auth)
                .header("Content-MD5", streamedMd5)
                .POST(HttpRequest.BodyPublishers.ofFile(streamed))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(second.statusCode()).as(second.body()).isEqualTo(200);
    assertThat(second.body()).contains("\"serial\":8");
    assertThat(contentRows(ws)).as("streamed into a content row").isEqualTo(1);
    assertThat(documentRows(ws, "content_id IS NOT NULL")).isEqualTo(1);
    assertThat(pulledMd5(client, state, auth)).isEqualTo(streamedMd5);
    assertThat(service.isAlive()).as("state-service survived").isTrue();
  }

  private static InputStream open(Path file) {
    try {
      return Files.newInputStream(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static String pulledMd5(HttpClient client, URI state, String auth) throws Exception {
    HttpResponse<InputStream> pulled =
        client.send(
            HttpRequest.newBuilder(state).header("Authorization", auth).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(pulled.statusCode()).isEqualTo(200);
    return md5(pulled.body());
  }

  private static long documentRows(String workspace, String condition) throws Exception {
    return count(
        "SELECT count(*) FROM state.state_documents WHERE workspace = ? AND " + condition,
        workspace);
  }

  private static long contentRows(String workspace) throws Exception {
    return count("SELECT count(*) FROM state.document_contents WHERE workspace = ?", workspace);
  }

  private static long count(String sql, String workspace) throws Exception {
    try (java.sql.Connection c = stack.stack().openDatabase();
        java.sql.PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, workspace);
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /**
   * A valid v4 document of about {@code mib} MiB: one resource whose instances carry 1 KiB of
   * attributes each, written piece by piece (never whole in this JVM's memory either).
   */
  static void writeDocument(Path file, String lineage, int mib) throws Exception {
    writeDocument(file, lineage, mib, 7);
  }

  /** {@link #writeDocument(Path, String, int)} with the given {@code serial}. */
  static void writeDocument(Path file, String lineage, int mib, long serial) throws Exception {
    String filler = "x".repeat(1000);
    long target = mib * 1024L * 1024L;
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      out.write(
          "{\"version\":4,\"terraform_version\":\"1.9.0\",\"serial\":"
              + serial
              + ",\"lineage\":\""
              + lineage
              + "\",\"outputs\":{},\"resources\":[{\"mode\":\"managed\",\"type\":\"null_resource\","
              + "\"name\":\"big\",\"provider\":\"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\","
              + "\"instances\":[");
      long written = 0;
      for (int i = 0; written <= target; i++) {
        String instance =
            (i == 0 ? "" : ",")
                + "{\"index_key\":"
                + i
                + ",\"schema_version\":0,\"attributes\":{\"id\":\""
                + i
                + "\",\"blob\":\""
                + filler
                + "\"}}";
        out.write(instance);
        written += instance.length();
      }
      out.write("]}]}");
    }
  }

  static String md5(InputStream in) throws Exception {
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    try (in) {
      byte[] piece = new byte[1 << 16];
      for (int n; (n = in.read(piece)) > 0; ) {
        md5.update(piece, 0, n);
      }
    }
    return Base64.getEncoder().encodeToString(md5.digest());
  }
}
