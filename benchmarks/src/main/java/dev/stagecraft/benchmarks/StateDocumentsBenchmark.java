package dev.stagecraft.benchmarks;

import static dev.stagecraft.benchmarks.StateBench.OUT;
import static dev.stagecraft.benchmarks.StateBench.TENANT;

import com.sun.management.ThreadMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.DevStackOptions;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code StateBenchmark documents [MB...]} (default 1 10 100): whole-document push and read of
 * {@code MB}-sized v4 documents (ADR 0022) against a raw {@code bytea} write ({@code INSERT} of the
 * bytes with {@code setBytes}, autocommit) and read ({@code SELECT} with {@code getBytes}) of the
 * same payload on the same database, into two tables: one with the column's default storage ({@code
 * EXTENDED}: compressed with pglz when that helps; the ratios' denominator, the "raw
 * bytea") and one with {@code STORAGE EXTERNAL} (out of line, uncompressed: what {@code
 * state.state_documents.content} uses):
 *
 * <ul>
 *   <li><b>over HTTP</b>: a dev stack as {@code stagecraft up} starts it (its services from their
 *       packaged jars with {@code ServiceJvm}'s options; the raw baselines use its PostgreSQL); a
 *       push is a POST to the Terraform HTTP backend ({@code /tf/v1/workspaces/{ws}/state}, body
 *       streamed from a file, with {@code Content-MD5}); a read is a GET whose body is read into
 *       memory with its {@code Content-MD5} header decoded, as Terraform's client reads it (it
 *       hashes the body only when the header is missing), and compared with the file's bytes after
 *       the clock stopped; the same GET is timed again with the client computing the body's MD5
 *       itself; the client behaves like Terraform's ({@link DocumentHttp}: one kept-alive
 *       connection with {@code TCP_NODELAY}); every round also pushes (to a second workspace) and
 *       GETs with {@code HttpURLConnection} (see {@link #httpPush}), the client used before,
 *       printed in a second table with every round's times, sorted;
 *   <li><b>below HTTP</b>: in this process, the path the service takes for a body with a {@code
 *       Content-Length} (ADR 0031): {@link StateStore#pushStreamed} with {@link
 *       SpooledDocument#receiveStreamed} (digests and validation on this thread, the bytes
 *       compressed as they arrive and inserted once valid, ADR 0041); the read is {@link
 *       StateStore#currentDocument} + {@link StateStore#openDocument} streamed into an MD5. The
 *       bytes the push allocated on its thread ({@code ThreadMXBean}: the receiving side, the
 *       compression's spool and the transaction's statements, the content insert included since ADR
 *       0041) are reported as a multiple of the payload, and must stay below 2× from 10 MiB for the
 *       repetitive document (the run fails otherwise; the varied one's parser allocates a string
 *       per attribute value, kept by nothing, and goes over).
 * </ul>
 *
 * <p>Each size runs warm-up rounds (not reported: they warm the JIT of this process and of the
 * service) and then measured rounds; every round does each operation once, interleaved (raw writes,
 * HTTP push with each client, push below HTTP, raw reads, HTTP GET with each client, read below
 * HTTP) on a new workspace and new raw rows, so machine noise falls on all of them alike. Reported:
 * the median of the measured rounds with min–max; ratios are medians over the default-storage raw
 * median. Rounds per size (warm-up + measured): 1 MiB 20 + 15, up to 10 MiB 5 + 9, larger 1 + 3;
 * {@code MB:WARMUP:MEASURED} overrides them for one size.
 */
final class StateDocumentsBenchmark {
  private StateDocumentsBenchmark() {}

  static void run(String[] args) throws Exception {
    String[] specs = args.length == 0 ? new String[] {"1", "10", "100"} : args;
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "state-bench-");
    Path repo = Path.of("").toAbsolutePath();
    repo = Files.exists(repo.resolve("state-service")) ? repo : repo.getParent();
    DevStack stack =
        DevStack.start(
            new DevStackOptions(
                dir.resolve("data"),
                repo,
                dir.resolve("home"),
                DevStackOptions.anyPorts(),
                0,
                0,
                null,
                DevStackOptions.currentJava(),
                Duration.ofSeconds(180),
                new PrintStream(OutputStream.nullOutputStream()),
                Map.of()));
    try (HikariDataSource ds =
            Databases.migrateAndPool(
                stack.info().postgres(),
                "postgres",
                "postgres",
                "state",
                "classpath:db/migration");
        DocumentHttp client = new DocumentHttp(URI.create(stack.info().state()))) {
      StringBuilder clients = new StringBuilder();
      StringBuilder rounds = new StringBuilder();
      StringBuilder jits = new StringBuilder();
      createRawTables(ds);
      String auth =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(
                      ("bench:" + stack.credentials().orElseThrow().token())
                          .getBytes(StandardCharsets.UTF_8));
      Bench bench =
          new Bench(
              ds,
              client,
              new StateStore(ds, Clock.systemUTC()),
              stack.info().state(),
              auth,
              threads,
              new AtomicLong());
      printHeader();
      for (String spec : specs) {
        Size size = measureSize(bench, stack.pid(StackService.STATE).orElse(-1), spec, dir);
        printRow(size);
        clients.append(clientsRow(size));
        rounds.append(roundsLine(size));
        jits.append(jitLine(size));
        // at 1 MiB the fixed cost of a push (transaction, statements, JIT) is a large part; the
        // varied document's parser garbage (a string per attribute value, none kept) exceeds it
        if (size.mb >= 10 && size.allocated >= 2 && DOCUMENT_SHAPE.equals("repetitive")) {
          throw new IllegalStateException(
              "the push allocated " + size.allocated + "x the payload on its thread (limit 2x)");
        }
      }
      printTrailer(clients, rounds, jits);
    } finally {
      stack.close();
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * What every round uses: the database of the raw baselines and of the push below HTTP, the
   * keep-alive client of the state service, its URL and credentials, and the keys of the raw rows.
   */
  private record Bench(
      HikariDataSource ds,
      DocumentHttp client,
      StateStore store,
      String stateUrl,
      String auth,
      ThreadMXBean threads,
      AtomicLong ids) {}

  /** One size's document: its bytes, the file they are pushed from, their MD5 (base64). */
  private static final class Document {
    final int mb;
    final byte[] body;
    final Path file;
    final String md5;

    Document(int mb, byte[] body, Path file, String md5) {
      this.mb = mb;
      this.body = body;
      this.file = file;
      this.md5 = md5;
    }
  }

  /**
   * One size's rounds: the milliseconds of each operation in the measured rounds (by the indexes of
   * {@link #round}), the bytes the last push allocated per payload byte, and the state service's
   * JIT compiler CPU at the start, after the warm-up and at the end.
   */
  private static final class Size {
    final int mb;
    final int warmUp;
    final int measured;
    final double[][] ms;
    final double allocated;
    final long[] jit;

    Size(int mb, int warmUp, int measured, double[][] ms, double allocated, long[] jit) {
      this.mb = mb;
      this.warmUp = warmUp;
      this.measured = measured;
      this.ms = ms;
      this.allocated = allocated;
      this.jit = jit;
    }
  }

  private static void createRawTables(HikariDataSource ds) throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(c, "CREATE TABLE public.raw_documents (id bigint PRIMARY KEY, body bytea)");
      Sql.update(
          c, "CREATE TABLE public.raw_documents_external (id bigint PRIMARY KEY, body bytea)");
      Sql.update(
          c, "ALTER TABLE public.raw_documents_external ALTER COLUMN body SET STORAGE EXTERNAL");
    }
  }

  private static void printHeader() {
    OUT.println(
        "Document: "
            + DOCUMENT_SHAPE
            + " (-Dstagecraft.bench.document). Median (min–max) ms of the measured rounds;"
            + " ratios: medians over the default-storage raw bytea median.");
    OUT.println();
    OUT.println(
        "| size | rounds | raw write ms | raw write EXTERNAL ms | HTTP push ms | push / raw"
            + " | push below HTTP ms | / raw | raw read ms | raw read EXTERNAL ms | HTTP GET ms"
            + " | GET / raw | read below HTTP ms | / raw | push allocated / payload |");
    OUT.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
  }

  /** The warm-up and measured rounds of one {@code MB[:WARMUP[:MEASURED]]}. */
  private static Size measureSize(Bench b, long statePid, String spec, Path dir) throws Exception {
    String[] parts = spec.split(":", -1);
    int mb = Integer.parseInt(parts[0]);
    // 1 MiB: 300 warm-up rounds, so the services' JIT has compiled the request path (with 20,
    // as until 2026-11-22, the 1 MiB ratios were those of code still being compiled)
    int warmUp = parts.length > 1 ? Integer.parseInt(parts[1]) : mb <= 1 ? 300 : mb <= 10 ? 5 : 1;
    int measured = parts.length > 2 ? Integer.parseInt(parts[2]) : mb <= 1 ? 30 : mb <= 10 ? 9 : 3;
    byte[] body = document(mb);
    Path file = dir.resolve("document-" + mb + ".json");
    Files.write(file, body);
    String md5 = Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
    Document doc = new Document(mb, body, file, md5);
    double[][] ms = new double[11][measured];
    double allocated = 0;
    // the state service's JIT compilers: CPU at the start, after the warm-up, at the end
    long[] jit = {JitCpu.compilerNanos(statePid), 0, 0};
    for (int r = 0; r < warmUp + measured; r++) {
      int m = r - warmUp; // < 0: a warm-up round, not recorded
      if (m == 0) {
        jit[1] = JitCpu.compilerNanos(statePid);
      }
      double[] round = new double[11];
      allocated = round(b, doc, r, round);
      if (m >= 0) {
        for (int k = 0; k < round.length; k++) {
          ms[k][m] = round[k];
        }
      }
    }
    Files.delete(file);
    jit[2] = JitCpu.compilerNanos(statePid);
    return new Size(mb, warmUp, measured, ms, allocated, jit);
  }

  /**
   * Round {@code r}: every operation once, its milliseconds into {@code round}: 0 raw write, 1 raw
   * write EXTERNAL, 2 HTTP push (keep-alive), 3 push below HTTP, 4 raw read, 5 raw read EXTERNAL, 6
   * HTTP GET (keep-alive), 7 read below HTTP, 8 HTTP push (HttpURLConnection), 9 HTTP GET
   * (HttpURLConnection, digesting), 10 HTTP GET (keep-alive, the client digesting).
   *
   * @return the bytes the push below HTTP allocated on this thread, per payload byte
   */
  private static double round(Bench b, Document doc, int r, double[] round) throws Exception {
    long key = b.ids().incrementAndGet();
    round[0] = rawWrite(b.ds(), "public.raw_documents", key, doc.body);
    round[1] = rawWrite(b.ds(), "public.raw_documents_external", key, doc.body);
    URL url =
        URI.create(b.stateUrl() + "/tf/v1/workspaces/http-" + doc.mb + "-" + r + "/state").toURL();
    URL urlConnectionUrl =
        URI.create(b.stateUrl() + "/tf/v1/workspaces/huc-" + doc.mb + "-" + r + "/state").toURL();
    String workspace = "below-" + doc.mb + "-" + r;
    double allocated = pushes(b, doc, url, urlConnectionUrl, workspace, round);

    round[4] = rawRead(b.ds(), "public.raw_documents", key, doc.body.length);
    round[5] = rawRead(b.ds(), "public.raw_documents_external", key, doc.body.length);
    reads(b, doc, url, urlConnectionUrl, workspace, round);
    // the raw rows are not needed again: keep the database from growing by the baselines
    try (Connection c = b.ds().getConnection()) {
      Sql.update(c, "DELETE FROM public.raw_documents WHERE id = ?", key);
      Sql.update(c, "DELETE FROM public.raw_documents_external WHERE id = ?", key);
    }
    return allocated;
  }

  /**
   * The pushes of a round: over HTTP with each client, then below HTTP.
   *
   * @return the bytes the push below HTTP allocated on this thread, per payload byte
   */
  private static double pushes(
      Bench b, Document doc, URL url, URL urlConnectionUrl, String workspace, double[] round)
      throws Exception {
    byte[] body = doc.body;
    long t = System.nanoTime();
    int pushed = b.client().push(url.getPath(), b.auth(), doc.md5, doc.file, body.length);
    round[2] = (System.nanoTime() - t) / 1e6;
    if (pushed != 200) {
      throw new IllegalStateException("HTTP push: " + pushed);
    }
    t = System.nanoTime();
    pushed = httpPush(urlConnectionUrl, b.auth(), doc.md5, doc.file, body.length);
    round[8] = (System.nanoTime() - t) / 1e6;
    if (pushed != 200) {
      throw new IllegalStateException("HTTP push (HttpURLConnection): " + pushed);
    }

    long allocatedBefore = b.threads().getCurrentThreadAllocatedBytes();
    t = System.nanoTime();
    var outcome = pushBelowHttp(b.store(), workspace, body);
    round[3] = (System.nanoTime() - t) / 1e6;
    double allocated =
        (double) (b.threads().getCurrentThreadAllocatedBytes() - allocatedBefore) / body.length;
    if (!outcome.accepted()) {
      throw new IllegalStateException("push refused: " + outcome.error());
    }
    return allocated;
  }

  /** The reads of a round: over HTTP with each client, then below HTTP; each checked. */
  private static void reads(
      Bench b, Document doc, URL url, URL urlConnectionUrl, String workspace, double[] round)
      throws Exception {
    String md5 = doc.md5;
    // the GET as Terraform's client makes it: the body into memory, the Content-MD5 header
    // decoded and kept, no digest of the body (what the raw read measures: the bytes in the
    // client's hands); checked after the clock stopped
    long t = System.nanoTime();
    DocumentHttp.Got got = b.client().get(url.getPath(), b.auth());
    round[6] = (System.nanoTime() - t) / 1e6;
    if (!Arrays.equals(got.body(), doc.body)
        || !Arrays.equals(got.md5(), Base64.getDecoder().decode(md5))) {
      throw new IllegalStateException("HTTP GET: other bytes or another Content-MD5");
    }
    // the same GET with the client computing the body's MD5 itself (not what Terraform does)
    t = System.nanoTime();
    String pulledMd5 = b.client().getMd5(url.getPath(), b.auth());
    round[10] = (System.nanoTime() - t) / 1e6;
    if (!pulledMd5.equals(md5)) {
      throw new IllegalStateException("HTTP GET: other bytes, MD5 " + pulledMd5);
    }
    t = System.nanoTime();
    pulledMd5 = httpGetMd5(urlConnectionUrl, b.auth());
    round[9] = (System.nanoTime() - t) / 1e6;
    if (!pulledMd5.equals(md5)) {
      throw new IllegalStateException(
          "HTTP GET (HttpURLConnection): other bytes, MD5 " + pulledMd5);
    }

    t = System.nanoTime();
    var current = b.store().currentDocument(TENANT, workspace);
    String readMd5 = md5(b.store().openDocument(TENANT, workspace, current.stored()));
    round[7] = (System.nanoTime() - t) / 1e6;
    if (!readMd5.equals(md5)) {
      throw new IllegalStateException("read back other bytes below HTTP");
    }
  }

  /** The size's row of the main table. */
  private static void printRow(Size s) {
    double[][] ms = s.ms;
    double rawWrite = median(ms[0]);
    double rawRead = median(ms[4]);
    OUT.printf(
        Locale.ROOT,
        "| %d MiB | %d + %d | %s | %s | %s | %.2fx | %s | %.2fx | %s | %s | %s | %.2fx | %s"
            + " | %.2fx | %.2fx |%n",
        s.mb,
        s.warmUp,
        s.measured,
        spread(ms[0]),
        spread(ms[1]),
        spread(ms[2]),
        median(ms[2]) / rawWrite,
        spread(ms[3]),
        median(ms[3]) / rawWrite,
        spread(ms[4]),
        spread(ms[5]),
        spread(ms[6]),
        median(ms[6]) / rawRead,
        spread(ms[7]),
        median(ms[7]) / rawRead,
        s.allocated);
  }

  /** The size's row of the table of the two HTTP clients. */
  private static String clientsRow(Size s) {
    double[][] ms = s.ms;
    double rawWrite = median(ms[0]);
    double rawRead = median(ms[4]);
    return String.format(
        Locale.ROOT,
        "| %d MiB | %s | %.2fx | %s | %.2fx | %s | %.2fx | %s | %.2fx | %s | %.2fx |%n",
        s.mb,
        spread(ms[2]),
        median(ms[2]) / rawWrite,
        spread(ms[8]),
        median(ms[8]) / rawWrite,
        spread(ms[6]),
        median(ms[6]) / rawRead,
        spread(ms[10]),
        median(ms[10]) / rawRead,
        spread(ms[9]),
        median(ms[9]) / rawRead);
  }

  /** Every measured round's times of the size, sorted. */
  private static String roundsLine(Size s) {
    double[][] ms = s.ms;
    return String.format(
        Locale.ROOT,
        "%n%d MiB, every measured round (ms, sorted): push keep-alive %s;"
            + " push HttpURLConnection %s; GET keep-alive %s; GET keep-alive, the client"
            + " digesting %s; GET HttpURLConnection (digesting) %s; raw write %s; raw read %s%n",
        s.mb,
        sorted(ms[2]),
        sorted(ms[8]),
        sorted(ms[6]),
        sorted(ms[10]),
        sorted(ms[9]),
        sorted(ms[0]),
        sorted(ms[4]));
  }

  private static String jitLine(Size s) {
    long[] jit = s.jit;
    return String.format(
        Locale.ROOT,
        "%d MiB: %.0f ms during the warm-up, %.0f ms during the measured rounds%n",
        s.mb,
        (jit[1] - jit[0]) / 1e6,
        (jit[2] - jit[1]) / 1e6);
  }

  /** After the main table: the two clients' table, every round's times, the JIT's CPU. */
  private static void printTrailer(
      StringBuilder clients, StringBuilder rounds, StringBuilder jits) {
    OUT.println();
    OUT.println(
        "The two HTTP clients, same rounds: keep-alive socket with TCP_NODELAY (the table"
            + " above; as Terraform's client) and HttpURLConnection (before 2026-11-21 17:30).");
    OUT.println();
    OUT.println(
        "| size | push keep-alive ms | / raw | push HttpURLConnection ms | / raw"
            + " | GET keep-alive ms | / raw | GET keep-alive, the client digesting the body ms"
            + " | / raw | GET HttpURLConnection, digesting ms | / raw |");
    OUT.println("|---|---|---|---|---|---|---|---|---|---|---|");
    OUT.print(clients);
    OUT.print(rounds);
    OUT.println();
    OUT.println(
        "The state service's JIT compiler threads, CPU time (well above zero during the"
            + " measured rounds: the service was still being compiled while measured):");
    OUT.print(jits);
  }

  /**
   * POSTs {@code file} ({@code length} bytes, with its {@code Content-MD5}) as Terraform's HTTP
   * backend does; the status. {@code HttpURLConnection} (kept-alive connections, blocking I/O on
   * this thread, the body streamed in 64 KiB writes with a fixed length) rather than {@code
   * java.net.http.HttpClient}, whose selector thread adds hand-offs to every request: the client
   * should cost as little as the raw baseline's driver.
   */
  private static int httpPush(URL url, String auth, String md5, Path file, long length)
      throws IOException {
    var connection = (HttpURLConnection) url.openConnection();
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setFixedLengthStreamingMode(length);
    connection.setRequestProperty("Authorization", auth);
    connection.setRequestProperty("Content-Type", "application/json");
    connection.setRequestProperty("Content-MD5", md5);
    try (var out = connection.getOutputStream();
        var in = Files.newInputStream(file)) {
      byte[] piece = new byte[1 << 16];
      for (int n; (n = in.read(piece)) > 0; ) {
        out.write(piece, 0, n);
      }
    }
    int status = connection.getResponseCode();
    try (var in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
      if (in != null) {
        in.readAllBytes();
      }
    }
    return status;
  }

  /** GETs {@code url}, streaming the body into an MD5 (base64); fails unless 200. */
  private static String httpGetMd5(URL url, String auth) throws Exception {
    var connection = (HttpURLConnection) url.openConnection();
    connection.setRequestProperty("Authorization", auth);
    int status = connection.getResponseCode();
    if (status != 200) {
      try (var in = connection.getErrorStream()) {
        throw new IllegalStateException(
            "HTTP GET: "
                + status
                + " "
                + (in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8)));
      }
    }
    return md5(connection.getInputStream());
  }

  /** Every value in ascending order, rounded to whole milliseconds. */
  private static String sorted(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    StringBuilder b = new StringBuilder();
    for (double v : sorted) {
      b.append(b.isEmpty() ? "" : " ").append(Math.round(v));
    }
    return b.toString();
  }

  /** One autocommit {@code INSERT} of {@code body} into {@code table}; milliseconds. */
  private static double rawWrite(HikariDataSource ds, String table, long key, byte[] body)
      throws SQLException {
    long t = System.nanoTime();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?)")) {
      ps.setLong(1, key);
      ps.setBytes(2, body);
      ps.executeUpdate();
    }
    return (System.nanoTime() - t) / 1e6;
  }

  /** One {@code SELECT} of the row {@code key} of {@code table} with {@code getBytes}; ms. */
  private static double rawRead(HikariDataSource ds, String table, long key, int length)
      throws SQLException {
    long t = System.nanoTime();
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT body FROM " + table + " WHERE id = ?")) {
      ps.setLong(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getBytes(1).length != length) {
          throw new IllegalStateException("raw read back a different length");
        }
      }
    }
    return (System.nanoTime() - t) / 1e6;
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  /** "median (min–max)" in milliseconds. */
  private static String spread(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return String.format(
        Locale.ROOT, "%,.0f (%,.0f–%,.0f)", median(values), sorted[0], sorted[sorted.length - 1]);
  }

  /**
   * The push as the service runs it for a body with a {@code Content-Length} (ADR 0031): received
   * and validated on this thread while a second thread streams the bytes into PostgreSQL.
   */
  private static DocumentDecider.Outcome pushBelowHttp(
      StateStore store, String workspace, byte[] body) throws Exception {
    return store.pushStreamed(
        TENANT,
        workspace,
        body.length,
        "bench",
        content ->
            SpooledDocument.receiveStreamed(
                new ByteArrayInputStream(body), null, body.length, content),
        () -> 0L);
  }

  private static String md5(InputStream in) throws Exception {
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    try (in) {
      byte[] piece = new byte[1 << 16];
      for (int n; (n = in.read(piece)) > 0; ) {
        md5.update(piece, 0, n);
      }
    }
    return Base64.getEncoder().encodeToString(md5.digest());
  }

  /** The benchmark documents' start, up to their one resource's first instance. */
  private static final String DOCUMENT_HEAD =
      "{\"version\":4,\"terraform_version\":\"1.9.8\",\"serial\":1,"
          + "\"lineage\":\"bench-lineage\",\"outputs\":{},\"resources\":[{\"mode\":"
          + "\"managed\",\"type\":\"stateful_provisioning\",\"name\":\"app\","
          + "\"provider\":\"provider[\\\"registry.terraform.io/hashicorp/null\\\"]\","
          + "\"instances\":[";

  /**
   * Which document {@code documents} measures: {@code repetitive} (the default; the same 1,000
   * characters per instance: pglz and zstd compress it 50-350×) or {@code varied} (per instance a
   * dozen random hex identifiers, ARNs and numbers, as a real state's ids and addresses are: zstd
   * compresses it about 4×), set with {@code -Dstagecraft.bench.document=varied}.
   */
  private static final String DOCUMENT_SHAPE =
      System.getProperty("stagecraft.bench.document", "repetitive");

  /**
   * A valid v4 document of about {@code mb} MiB: one resource, about 1 KiB of attributes per
   * instance, of {@link #DOCUMENT_SHAPE}.
   */
  private static byte[] document(int mb) {
    if (DOCUMENT_SHAPE.equals("varied")) {
      return variedDocument(mb);
    }
    if (!DOCUMENT_SHAPE.equals("repetitive")) {
      throw new IllegalArgumentException(
          "stagecraft.bench.document must be repetitive or varied, not " + DOCUMENT_SHAPE);
    }
    StringBuilder b = new StringBuilder(DOCUMENT_HEAD);
    String filler = "x".repeat(1000);
    long target = (long) mb << 20;
    for (int i = 0; b.length() < target; i++) {
      startInstance(b, i).append(",\"blob\":\"").append(filler).append("\"}}");
    }
    b.append("]}]}");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Appends instance {@code i} up to its {@code id} attribute (the next attribute follows). */
  private static StringBuilder startInstance(StringBuilder b, int i) {
    if (i > 0) {
      b.append(',');
    }
    return b.append("{\"index_key\":")
        .append(i)
        .append(",\"schema_version\":0,\"attributes\":{\"id\":\"i-")
        .append(i)
        .append('"');
  }

  /** {@link #document}'s {@code varied} shape: random identifiers, seeded (the same every run). */
  private static byte[] variedDocument(int mb) {
    StringBuilder b = new StringBuilder(DOCUMENT_HEAD);
    Random random = new Random(mb);
    String[] kinds = {"subnet-", "sg-", "arn:aws:ec2:eu-west-1:123456789012:instance/i-"};
    long target = (long) mb << 20;
    for (int i = 0; b.length() < target; i++) {
      startInstance(b, i);
      for (int k = 0; k < 12; k++) {
        b.append(",\"attr_").append(k).append("\":\"").append(kinds[k % 3]);
        for (int j = 0; j < 16; j++) {
          b.append(Character.forDigit(random.nextInt(16), 16));
        }
        b.append('-').append(random.nextInt(100_000)).append('"');
      }
      b.append(",\"tags\":{\"env\":\"prod\",\"team\":\"platform\"}}}");
    }
    b.append("]}]}");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }
}
