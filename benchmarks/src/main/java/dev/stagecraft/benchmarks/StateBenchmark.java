package dev.stagecraft.benchmarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.sun.management.ThreadMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.stagecraft.devstack.DevStack;
import dev.stagecraft.devstack.DevStackOptions;
import dev.stagecraft.devstack.EmbeddedPostgresServer;
import dev.stagecraft.devstack.StackService;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.schemas.action.ActionFinished;
import dev.stagecraft.schemas.envelope.EventEnvelope;
import dev.stagecraft.servicekit.db.Databases;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.db.EventAppend;
import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.adapter.document.SpooledDocument;
import dev.stagecraft.state.history.DocumentDecider;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.HttpURLConnection;
import java.net.Socket;
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
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * The state store's event append against a raw single-row insert on the same embedded PostgreSQL,
 * in an empty store and in a store holding {@code fill} events. Prints a table for
 * docs/benchmarks.md. Not a test: it asserts nothing about time.
 *
 * <ul>
 *   <li><b>raw insert</b>: one autocommit {@code INSERT} of five of a state event's columns
 *       (tenant, workspace, sequence, the same jsonb payload, time) into a table with the same
 *       primary key; and, since 2026-11-29, <b>the event's row</b>: every column of a state event
 *       with the same values (a) writes, into a table with the same primary key and no other
 *       constraint, index or trigger. Both baselines measure the same (within 2 %): the six text
 *       columns the first leaves out cost nothing measurable;
 *   <li><b>(a) event append</b>: the store's append primitive, {@code EventAppend.appendOne} (ADR
 *       0027, ADR 0052: since 2026-11-29 a bare insert at the head + 1 when the caller knows its
 *       token is the newest at that head; {@code state.append_events} only when that writes
 *       nothing) with one event of the same payload (see {@link #primitive}); beside it, as "(a,
 *       before)", one call of {@code state.append_events} (V7/V14, ADR 0021) per event; and "(a, no
 *       check)", the same event row inserted by the benchmark itself ({@link #bareInsert}): what
 *       (a) now sends, without the primitive's Java around it;
 *   <li><b>(b) record</b>: {@link StateStore#record} of a succeeded {@code update} — the real path
 *       of an executor's result, built on exactly (a): fold (from the in-process cache), decide,
 *       serialize, then one statement with the event, its version row and the outcome;
 *   <li><b>at N events</b>: (a) and (b) again after {@code fill} events were bulk-loaded into the
 *       store (1,000 per workspace), appending to one of those workspaces (for (b) its first append
 *       folds its 1,000 events; the measured ones hit the cache, as in service) and to a new one.
 * </ul>
 *
 * <p>Every series takes its turn in every round, the order rotating ({@link #interleaved}; since
 * 2026-11-29; before, each series ran as one block after the other, and the machine's drift between
 * blocks moved the ratios by up to ±0.3).
 *
 * <p>Usage: {@code StateBenchmark append [APPENDS] [FILL]} (defaults 2000 and 1000000). One client,
 * one thread: latency per operation, not the database's parallel throughput. {@code StateBenchmark
 * documents [MB...]} (default 1 10 100): see {@link #documents}.
 */
public final class StateBenchmark {
  private static final PrintStream OUT = System.out;
  private static final String TENANT = "bench";
  private static final EventCodec EXECUTOR = EventCodec.forSource("/bench/executor");

  private static final java.lang.management.ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  /** The client CPU per operation of each measured series (by identity). */
  private static final Map<double[], Double> CPU_PER_OP = new IdentityHashMap<>();

  private StateBenchmark() {}

  public static void main(String[] args) throws Exception {
    String what = args.length > 0 ? args[0] : "append";
    String[] rest = Arrays.copyOfRange(args, Math.min(1, args.length), args.length);
    switch (what) {
      case "append" -> append(rest);
      case "documents" -> documents(rest);
      case "openings" -> openings(rest);
      default -> {
        System.err.println(
            "usage: StateBenchmark append [APPENDS] [FILL] | documents [MB...] | openings [N]");
        System.exit(2);
      }
    }
  }

  /**
   * Whole-document push and read of {@code MB}-sized v4 documents (ADR 0022) against a raw {@code
   * bytea} write ({@code INSERT} of the bytes with {@code setBytes}, autocommit) and read ({@code
   * SELECT} with {@code getBytes}) of the same payload on the same database, into two tables: one
   * with the column's default storage ({@code EXTENDED}: compressed with pglz when that helps; the
   * ratios' denominator, the "raw bytea") and one with {@code STORAGE EXTERNAL} (out of
   * line, uncompressed: what {@code state.state_documents.content} uses):
   *
   * <ul>
   *   <li><b>over HTTP</b>: a dev stack as {@code stagecraft up} starts it (its services from their
   *       packaged jars with {@code ServiceJvm}'s options; the raw baselines use its PostgreSQL); a
   *       push is a POST to the Terraform HTTP backend ({@code /tf/v1/workspaces/{ws}/state}, body
   *       streamed from a file, with {@code Content-MD5}); a read is a GET whose body is read into
   *       memory with its {@code Content-MD5} header decoded, as Terraform's client reads it (it
   *       hashes the body only when the header is missing), and compared with the file's bytes
   *       after the clock stopped; the same GET is timed again with the client computing the body's
   *       MD5 itself; the client behaves like Terraform's ({@link DocumentHttp}: one kept-alive
   *       connection with {@code TCP_NODELAY}); every round also pushes (to a second workspace) and
   *       GETs with {@code HttpURLConnection} (see {@link #httpPush}), the client used before,
   *       printed in a second table with every round's times, sorted;
   *   <li><b>below HTTP</b>: in this process, the path the service takes for a body with a {@code
   *       Content-Length} (ADR 0031): {@link StateStore#pushStreamed} with {@link
   *       dev.stagecraft.state.adapter.document.SpooledDocument#receiveStreamed} (digests and
   *       validation on this thread, the bytes compressed as they arrive and inserted once valid,
   *       ADR 0041); the read is {@link StateStore#currentDocument} + {@link
   *       StateStore#openDocument} streamed into an MD5. The bytes the push allocated on its thread
   *       ({@code ThreadMXBean}: the receiving side, the compression's spool and the transaction's
   *       statements, the content insert included since ADR 0041) are reported as a multiple of the
   *       payload, and must stay below 2× from 10 MiB for the repetitive document (the run fails
   *       otherwise; the varied one's parser allocates a string per attribute value, kept by
   *       nothing, and goes over).
   * </ul>
   *
   * <p>Each size runs warm-up rounds (not reported: they warm the JIT of this process and of the
   * service) and then measured rounds; every round does each operation once, interleaved (raw
   * writes, HTTP push with each client, push below HTTP, raw reads, HTTP GET with each client, read
   * below HTTP) on a new workspace and new raw rows, so machine noise falls on all of them alike.
   * Reported: the median of the measured rounds with min–max; ratios are medians over the
   * default-storage raw median. Rounds per size (warm-up + measured): 1 MiB 20 + 15, up to 10 MiB 5
   * + 9, larger 1 + 3; {@code MB:WARMUP:MEASURED} overrides them for one size.
   */
  private static void documents(String[] args) throws Exception {
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
      try (Connection c = ds.getConnection()) {
        Sql.update(c, "CREATE TABLE public.raw_documents (id bigint PRIMARY KEY, body bytea)");
        Sql.update(
            c, "CREATE TABLE public.raw_documents_external (id bigint PRIMARY KEY, body bytea)");
        Sql.update(
            c, "ALTER TABLE public.raw_documents_external ALTER COLUMN body SET STORAGE EXTERNAL");
      }
      String stateUrl = stack.info().state();
      String auth =
          "Basic "
              + Base64.getEncoder()
                  .encodeToString(
                      ("bench:" + stack.credentials().orElseThrow().token())
                          .getBytes(StandardCharsets.UTF_8));
      StateStore store = new StateStore(ds, Clock.systemUTC());
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
      long id = 0;
      for (String spec : specs) {
        String[] parts = spec.split(":");
        int mb = Integer.parseInt(parts[0]);
        // 1 MiB: 300 warm-up rounds, so the services' JIT has compiled the request path (with 20,
        // as until 2026-11-22, the 1 MiB ratios were those of code still being compiled)
        int warmUp =
            parts.length > 1 ? Integer.parseInt(parts[1]) : mb <= 1 ? 300 : mb <= 10 ? 5 : 1;
        int measured =
            parts.length > 2 ? Integer.parseInt(parts[2]) : mb <= 1 ? 30 : mb <= 10 ? 9 : 3;
        byte[] body = document(mb);
        Path file = dir.resolve("document-" + mb + ".json");
        Files.write(file, body);
        String md5 =
            Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body));
        double[][] ms = new double[11][measured];
        double allocated = 0;
        // the state service's JIT compilers: CPU at the start, after the warm-up, at the end
        long statePid = stack.pid(StackService.STATE).orElse(-1);
        long[] jit = {JitCpu.compilerNanos(statePid), 0, 0};
        for (int r = 0; r < warmUp + measured; r++) {
          int m = r - warmUp; // < 0: a warm-up round, not recorded
          if (m == 0) {
            jit[1] = JitCpu.compilerNanos(statePid);
          }
          double[] round = new double[11];
          long key = ++id;
          round[0] = rawWrite(ds, "public.raw_documents", key, body);
          round[1] = rawWrite(ds, "public.raw_documents_external", key, body);

          URL url =
              java.net
                  .URI
                  .create(stateUrl + "/tf/v1/workspaces/http-" + mb + "-" + r + "/state")
                  .toURL();
          long t = System.nanoTime();
          int pushed = client.push(url.getPath(), auth, md5, file, body.length);
          round[2] = (System.nanoTime() - t) / 1e6;
          if (pushed != 200) {
            throw new IllegalStateException("HTTP push: " + pushed);
          }
          URL urlConnectionUrl =
              java.net
                  .URI
                  .create(stateUrl + "/tf/v1/workspaces/huc-" + mb + "-" + r + "/state")
                  .toURL();
          t = System.nanoTime();
          pushed = httpPush(urlConnectionUrl, auth, md5, file, body.length);
          round[8] = (System.nanoTime() - t) / 1e6;
          if (pushed != 200) {
            throw new IllegalStateException("HTTP push (HttpURLConnection): " + pushed);
          }

          String workspace = "below-" + mb + "-" + r;
          long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
          t = System.nanoTime();
          var outcome = pushBelowHttp(store, workspace, body);
          round[3] = (System.nanoTime() - t) / 1e6;
          allocated =
              (double) (threads.getCurrentThreadAllocatedBytes() - allocatedBefore) / body.length;
          if (!outcome.accepted()) {
            throw new IllegalStateException("push refused: " + outcome.error());
          }

          round[4] = rawRead(ds, "public.raw_documents", key, body.length);
          round[5] = rawRead(ds, "public.raw_documents_external", key, body.length);

          // the GET as Terraform's client makes it: the body into memory, the Content-MD5 header
          // decoded and kept, no digest of the body (what the raw read measures: the bytes in the
          // client's hands); checked after the clock stopped
          t = System.nanoTime();
          DocumentHttp.Got got = client.get(url.getPath(), auth);
          round[6] = (System.nanoTime() - t) / 1e6;
          if (!Arrays.equals(got.body(), body)
              || !Arrays.equals(got.md5(), Base64.getDecoder().decode(md5))) {
            throw new IllegalStateException("HTTP GET: other bytes or another Content-MD5");
          }
          // the same GET with the client computing the body's MD5 itself (not what Terraform does)
          t = System.nanoTime();
          String pulledMd5 = client.getMd5(url.getPath(), auth);
          round[10] = (System.nanoTime() - t) / 1e6;
          if (!pulledMd5.equals(md5)) {
            throw new IllegalStateException("HTTP GET: other bytes, MD5 " + pulledMd5);
          }
          t = System.nanoTime();
          pulledMd5 = httpGetMd5(urlConnectionUrl, auth);
          round[9] = (System.nanoTime() - t) / 1e6;
          if (!pulledMd5.equals(md5)) {
            throw new IllegalStateException(
                "HTTP GET (HttpURLConnection): other bytes, MD5 " + pulledMd5);
          }

          t = System.nanoTime();
          var current = store.currentDocument(TENANT, workspace);
          String readMd5 = md5(store.openDocument(TENANT, workspace, current.stored()));
          round[7] = (System.nanoTime() - t) / 1e6;
          if (!readMd5.equals(md5)) {
            throw new IllegalStateException("read back other bytes below HTTP");
          }
          // the raw rows are not needed again: keep the database from growing by the baselines
          try (Connection c = ds.getConnection()) {
            Sql.update(c, "DELETE FROM public.raw_documents WHERE id = ?", key);
            Sql.update(c, "DELETE FROM public.raw_documents_external WHERE id = ?", key);
          }
          if (m >= 0) {
            for (int k = 0; k < round.length; k++) {
              ms[k][m] = round[k];
            }
          }
        }
        Files.delete(file);
        jit[2] = JitCpu.compilerNanos(statePid);
        jits.append(
            String.format(
                Locale.ROOT,
                "%d MiB: %.0f ms during the warm-up, %.0f ms during the measured rounds%n",
                mb,
                (jit[1] - jit[0]) / 1e6,
                (jit[2] - jit[1]) / 1e6));
        double rawWrite = median(ms[0]);
        double rawRead = median(ms[4]);
        OUT.printf(
            Locale.ROOT,
            "| %d MiB | %d + %d | %s | %s | %s | %.2fx | %s | %.2fx | %s | %s | %s | %.2fx | %s"
                + " | %.2fx | %.2fx |%n",
            mb,
            warmUp,
            measured,
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
            allocated);
        clients.append(
            String.format(
                Locale.ROOT,
                "| %d MiB | %s | %.2fx | %s | %.2fx | %s | %.2fx | %s | %.2fx | %s | %.2fx |%n",
                mb,
                spread(ms[2]),
                median(ms[2]) / rawWrite,
                spread(ms[8]),
                median(ms[8]) / rawWrite,
                spread(ms[6]),
                median(ms[6]) / rawRead,
                spread(ms[10]),
                median(ms[10]) / rawRead,
                spread(ms[9]),
                median(ms[9]) / rawRead));
        rounds.append(
            String.format(
                Locale.ROOT,
                "%n%d MiB, every measured round (ms, sorted): push keep-alive %s;"
                    + " push HttpURLConnection %s; GET keep-alive %s; GET keep-alive, the client"
                    + " digesting %s; GET HttpURLConnection (digesting) %s; raw write %s; raw read %s%n",
                mb,
                sorted(ms[2]),
                sorted(ms[8]),
                sorted(ms[6]),
                sorted(ms[10]),
                sorted(ms[9]),
                sorted(ms[0]),
                sorted(ms[4])));
        // at 1 MiB the fixed cost of a push (transaction, statements, JIT) is a large part; the
        // varied document's parser garbage (a string per attribute value, none kept) exceeds it
        if (mb >= 10 && allocated >= 2 && DOCUMENT_SHAPE.equals("repetitive")) {
          throw new IllegalStateException(
              "the push allocated " + allocated + "x the payload on its thread (limit 2x)");
        }
      }
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
    } finally {
      stack.close();
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
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

  /**
   * A client that behaves like Terraform's (Go {@code net/http}): one kept-alive HTTP/1.1
   * connection with {@code TCP_NODELAY}, the request's head and body through one 64 KiB buffer
   * (flushed when full and at the end; no {@code Expect: 100-continue}), the answer read from a 64
   * KiB buffer, a {@code Content-Length} or chunked body. Reconnects when the service closed the
   * connection. One request at a time; not thread-safe.
   */
  static final class DocumentHttp implements AutoCloseable {
    private final String host;
    private final int port;
    private Socket socket;
    private OutputStream out;
    private InputStream in;
    private boolean keepAlive;

    DocumentHttp(URI base) {
      this.host = base.getHost();
      this.port = base.getPort();
    }

    /** POSTs {@code file} ({@code length} bytes) with its {@code Content-MD5}; the status. */
    int push(String path, String auth, String md5, Path file, long length) throws IOException {
      connect();
      writeHead(
          "POST "
              + path
              + " HTTP/1.1\r\nHost: "
              + host
              + ":"
              + port
              + "\r\nAuthorization: "
              + auth
              + "\r\nContent-Type: application/json\r\nContent-MD5: "
              + md5
              + "\r\nContent-Length: "
              + length
              + "\r\n\r\n");
      try (var body = Files.newInputStream(file)) {
        body.transferTo(out);
      }
      out.flush();
      int status = readHead();
      readBody(null);
      return status;
    }

    /**
     * GETs {@code path} as Terraform's HTTP backend client does: the body read into memory and the
     * {@code Content-MD5} header decoded, not checked against the body (the client computes an MD5
     * only when the header is missing). Fails unless 200 with a {@code Content-MD5}.
     */
    Got get(String path, String auth) throws Exception {
      Buffer body = new Buffer();
      int status = request(path, auth, body);
      if (status != 200 || contentMd5 == null) {
        throw new IllegalStateException("HTTP GET: " + status + ", Content-MD5 " + contentMd5);
      }
      return new Got(body.bytes(), Base64.getDecoder().decode(contentMd5));
    }

    /**
     * A body in memory: one array of the announced length (as Go's {@code bytes.Buffer} ends up
     * holding it, without the copies of its growth), doubled when a chunked body outgrows it.
     */
    static final class Buffer implements Sink {
      private byte[] bytes = new byte[1 << 16];
      private int size;

      @Override
      public void expect(long length) {
        if (length > bytes.length) {
          bytes = new byte[Math.toIntExact(length)];
        }
      }

      @Override
      public void accept(byte[] piece, int offset, int length) {
        if (size + length > bytes.length) {
          bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + length));
        }
        System.arraycopy(piece, offset, bytes, size, length);
        size += length;
      }

      byte[] bytes() {
        return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
      }
    }

    /** A GET's body and the MD5 its {@code Content-MD5} header names. */
    record Got(byte[] body, byte[] md5) {}

    /**
     * GETs {@code path}, the body streamed into an MD5 (base64) that the client computes itself (a
     * check Terraform's client does not make); fails unless 200.
     */
    String getMd5(String path, String auth) throws Exception {
      MessageDigest md5 = MessageDigest.getInstance("MD5");
      int status = request(path, auth, md5::update);
      if (status != 200) {
        throw new IllegalStateException("HTTP GET: " + status);
      }
      return Base64.getEncoder().encodeToString(md5.digest());
    }

    /** Where an answer's body goes, piece by piece. */
    interface Sink {
      void accept(byte[] piece, int offset, int length);

      /** The body's announced length, before its first piece. */
      default void expect(long length) {}
    }

    /** GETs {@code path}, the body into {@code sink}; the status. */
    private int request(String path, String auth, Sink sink) throws Exception {
      connect();
      writeHead(
          "GET "
              + path
              + " HTTP/1.1\r\nHost: "
              + host
              + ":"
              + port
              + "\r\nAuthorization: "
              + auth
              + "\r\n\r\n");
      out.flush();
      int status = readHead();
      readBody(sink);
      return status;
    }

    private long contentLength;
    private boolean chunked;
    private String contentMd5;

    private void connect() throws IOException {
      if (socket != null && keepAlive) {
        return;
      }
      close();
      socket = new Socket(host, port);
      socket.setTcpNoDelay(true);
      out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
      in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    }

    private void writeHead(String head) throws IOException {
      out.write(head.getBytes(StandardCharsets.US_ASCII));
    }

    private int readHead() throws IOException {
      String status = line();
      contentLength = -1;
      chunked = false;
      contentMd5 = null;
      keepAlive = true;
      for (String header = line(); !header.isEmpty(); header = line()) {
        int colon = header.indexOf(':');
        String name = header.substring(0, Math.max(colon, 0)).trim();
        String value = header.substring(colon + 1).trim();
        if (name.equalsIgnoreCase("content-length")) {
          contentLength = Long.parseLong(value);
        } else if (name.equalsIgnoreCase("transfer-encoding")) {
          chunked = value.equalsIgnoreCase("chunked");
        } else if (name.equalsIgnoreCase("content-md5")) {
          contentMd5 = value;
        } else if (name.equalsIgnoreCase("connection")) {
          keepAlive = !value.equalsIgnoreCase("close");
        }
      }
      return Integer.parseInt(status.split(" ")[1]);
    }

    /** Reads the answer's body into {@code sink} (or drops it when null); its length. */
    private long readBody(Sink sink) throws IOException {
      byte[] piece = new byte[1 << 16];
      if (chunked) {
        long total = 0;
        for (long size = Long.parseLong(line().split(";")[0].trim(), 16);
            size > 0;
            size = Long.parseLong(line().split(";")[0].trim(), 16)) {
          copy(size, piece, sink);
          total += size;
          line();
        }
        while (!line().isEmpty()) {
          // trailers
        }
        return total;
      } else if (contentLength >= 0) {
        if (sink != null) {
          sink.expect(contentLength);
        }
        copy(contentLength, piece, sink);
        return contentLength;
      } else {
        throw new IllegalStateException("an answer without a length: cannot keep the connection");
      }
    }

    private void copy(long size, byte[] piece, Sink sink) throws IOException {
      for (long left = size; left > 0; ) {
        int n = in.read(piece, 0, (int) Math.min(piece.length, left));
        if (n < 0) {
          throw new EOFException("connection closed by the service");
        }
        if (sink != null) {
          sink.accept(piece, 0, n);
        }
        left -= n;
      }
    }

    private String line() throws IOException {
      StringBuilder line = new StringBuilder();
      for (int b = in.read(); b != '\n'; b = in.read()) {
        if (b < 0) {
          throw new EOFException("connection closed by the service");
        }
        if (b != '\r') {
          line.append((char) b);
        }
      }
      return line.toString();
    }

    @Override
    public void close() throws IOException {
      if (socket != null) {
        socket.close();
        socket = null;
      }
    }
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

  private static void append(String[] args) throws Exception {
    int appends = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    int fill = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      try (Connection c = ds.getConnection()) {
        Sql.update(
            c,
            "CREATE TABLE state.raw_events (tenant text NOT NULL, workspace text NOT NULL,"
                + " sequence bigint NOT NULL, payload jsonb NOT NULL, created_at timestamptz"
                + " NOT NULL, PRIMARY KEY (tenant, workspace, sequence))");
        // the same row as a state event, every column, the same primary key; no other constraint
        Sql.update(
            c,
            "CREATE TABLE state.raw_event_rows (tenant text NOT NULL, workspace text NOT NULL,"
                + " sequence bigint NOT NULL, event_id text NOT NULL, run_id text, action_id text,"
                + " actor text, type text NOT NULL, address text, payload jsonb NOT NULL,"
                + " created_at timestamptz NOT NULL, PRIMARY KEY (tenant, workspace, sequence))");
      }
      StateStore store = new StateStore(ds, Clock.systemUTC());
      String payload = samplePayload(store);
      OUT.printf(
          Locale.ROOT,
          "state append benchmark: %d operations each, one client, PostgreSQL %s%n",
          appends,
          pg.jdbcUrl());
      OUT.println(
          "| case | ops/s | p50 ms | p99 ms | client CPU ms/op | vs raw insert (throughput)"
              + " | vs raw insert (p50) | vs raw insert of the event's row (throughput)"
              + " | vs raw insert of the event's row (p50) |");
      OUT.println("|---|---|---|---|---|---|---|---|---|");
      // warm up every path (JIT, pool, plan cache): at least 2,000 operations each
      int warmUp = Math.max(appends / 4, 2_000);
      interleaved(
          warmUp,
          i -> rawInsert(ds, "warm", payload, i),
          i -> rawRowInsert(ds, "warm", payload, i),
          i -> primitive(ds, "warm-primitive", payload, 0, i, false),
          i -> primitive(ds, "warm-function", payload, 0, i, true),
          i -> bareInsert(ds, "warm-bare", payload, 0, i),
          records(store, "warm", 0, warmUp));

      // every series takes its turn in every round (the order rotating), so that the machine's
      // drift and the database's background work fall on all of them alike
      double[][] empty =
          interleaved(
              appends,
              i -> rawInsert(ds, "raw-empty", payload, i),
              i -> rawRowInsert(ds, "raw-empty", payload, i),
              i -> primitive(ds, "primitive", payload, 0, i, false),
              i -> primitive(ds, "function", payload, 0, i, true),
              i -> bareInsert(ds, "bare", payload, 0, i),
              records(store, "empty", 0, appends));
      double[] raw = empty[0];
      double[] rawRow = empty[1];
      double[] primitive = empty[2];
      double[] recordEmpty = empty[5];
      row("raw single-row insert (empty store)", raw, raw, rawRow);
      row(
          "raw single-row insert of the event's row: every column (empty store)",
          rawRow,
          raw,
          rawRow);
      row("(a) event append: the fast statement (empty store)", primitive, raw, rawRow);
      row("(a, before) one `state.append_events` call (V7) (empty store)", empty[3], raw, rawRow);
      row(
          "(a, no check) the event row alone, `ON CONFLICT DO NOTHING` (empty store)",
          empty[4],
          raw,
          rawRow);
      row("(b) `StateStore.record` of an action outcome (empty store)", recordEmpty, raw, rawRow);

      long loaded = bulkLoad(ds, payload, fill);
      // first append to a filled workspace: folds its history
      records(store, "w0", 10_000, 1).run(0);
      double[][] full =
          interleaved(
              appends,
              i -> rawInsert(ds, "raw-full", payload, i),
              i -> rawRowInsert(ds, "raw-full", payload, i),
              i -> primitive(ds, "w1", payload, 1000, i, false),
              i -> primitive(ds, "w2", payload, 1000, i, true),
              i -> primitive(ds, "primitive-fresh", payload, 0, i, false),
              i -> bareInsert(ds, "w3", payload, 1000, i),
              records(store, "w0", 10_001, appends),
              records(store, "fresh", 0, appends));
      double[] rawFull = full[0];
      double[] rawRowFull = full[1];
      String stored = String.format(Locale.ROOT, "%,d stored", loaded);
      row("raw single-row insert (" + stored + ")", rawFull, rawFull, rawRowFull);
      row(
          "raw single-row insert of the event's row: every column (" + stored + ")",
          rawRowFull,
          rawFull,
          rawRowFull);
      row("(a) event append, 1,000-event workspace (" + stored + ")", full[2], rawFull, rawRowFull);
      row(
          "(a, before) `state.append_events`, 1,000-event workspace (" + stored + ")",
          full[3],
          rawFull,
          rawRowFull);
      row("(a) event append, new workspace (" + stored + ")", full[4], rawFull, rawRowFull);
      row(
          "(a, no check) the event row alone, 1,000-event workspace (" + stored + ")",
          full[5],
          rawFull,
          rawRowFull);
      row(
          "(b) `StateStore.record`, 1,000-event workspace (" + stored + ")",
          full[6],
          rawFull,
          rawRowFull);
      row("(b) `StateStore.record`, new workspace (" + stored + ")", full[7], rawFull, rawRowFull);
      OUT.printf(
          Locale.ROOT,
          "at %d events / empty store, 1,000-event workspace: (a) p50 %.2fx p99 %.2fx;"
              + " (b) p50 %.2fx p99 %.2fx%n",
          loaded,
          percentile(full[2], 50) / percentile(primitive, 50),
          percentile(full[2], 99) / percentile(primitive, 99),
          percentile(full[6], 50) / percentile(recordEmpty, 50),
          percentile(full[6], 99) / percentile(recordEmpty, 99));
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /**
   * {@code openings [N]} (default 2000): {@link StateStore#openRun} — a run opening that advances
   * the workspace's token, with its {@code fencing_advanced} event (ADR 0052) — against the two
   * statements of ADR 0047 that opened a run before (advance the token and store the credential in
   * one statement; read the head and the host keys in a second; the fold then a cache hit), run
   * here as plain SQL on a workspace of their own. Interleaved; every opening takes the next token.
   */
  private static void openings(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    Path dir = Files.createTempDirectory(Path.of("target"), "state-bench-");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg/data"), 0);
        HikariDataSource ds =
            Databases.migrateAndPool(
                pg.jdbcUrl(), pg.user(), pg.password(), "state", "classpath:db/migration")) {
      StateStore store = new StateStore(ds, Clock.systemUTC());
      int warmUp = Math.max(n / 4, 1_000);
      OUT.printf(
          Locale.ROOT,
          "run opening benchmark: %d openings each, one client, %s%n",
          n,
          pg.jdbcUrl());
      interleaved(
          warmUp,
          i -> openingBefore(ds, "warm-before", i + 1),
          i -> store.openRun(TENANT, "warm-now", i + 1, "run-warm-" + i, "warm-" + i));
      double[][] measured =
          interleaved(
              n,
              i -> openingBefore(ds, "before", i + 1),
              i -> store.openRun(TENANT, "now", i + 1, "run-now-" + i, "now-" + i));
      OUT.println("| case | p50 ms | p99 ms | client CPU ms/op | vs before (p50) |");
      OUT.println("|---|---|---|---|---|");
      for (int k = 0; k < 2; k++) {
        double[] series = measured[k];
        OUT.printf(
            Locale.ROOT,
            "| %s | %.3f | %.2f | %.3f | %.2fx |%n",
            k == 0
                ? "ADR 0047's two statements (no event)"
                : "`StateStore.openRun` (ADR 0052: one statement with the event; the fold)",
            percentile(series, 50) / 1e6,
            percentile(series, 99) / 1e6,
            CPU_PER_OP.getOrDefault(series, Double.NaN) / 1e6,
            percentile(series, 50) / percentile(measured[0], 50));
      }
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** A run opening as ADR 0047 made it before ADR 0052: two statements, no event. */
  private static void openingBefore(HikariDataSource ds, String workspace, long token)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement(
              "WITH f AS (INSERT INTO state.fencing AS f (tenant, workspace, newest_token)"
                  + " VALUES (?, ?, ?) ON CONFLICT (tenant, workspace)"
                  + " DO UPDATE SET newest_token = excluded.newest_token"
                  + " WHERE f.newest_token <= excluded.newest_token RETURNING f.newest_token),"
                  + " cr AS (INSERT INTO state.run_credentials (tenant, workspace, run_id,"
                  + " credential_hash, fencing_token, created_at)"
                  + " SELECT ?, ?, ?, ?, ?, ? FROM f"
                  + " ON CONFLICT (tenant, workspace, run_id) DO UPDATE SET"
                  + " credential_hash = excluded.credential_hash,"
                  + " fencing_token = excluded.fencing_token"
                  + " WHERE state.run_credentials.revoked_at IS NULL RETURNING 1)"
                  + " SELECT (SELECT count(*) FROM f), (SELECT count(*) FROM cr)")) {
        Timestamp now = Timestamp.from(Instant.now());
        ps.setString(1, TENANT);
        ps.setString(2, workspace);
        ps.setLong(3, token);
        ps.setString(4, TENANT);
        ps.setString(5, workspace);
        ps.setString(6, "run-" + workspace + "-" + token);
        ps.setString(7, workspace + "-" + token);
        ps.setLong(8, token);
        ps.setTimestamp(9, now);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getLong(1) != 1 || rs.getLong(2) != 1) {
            throw new IllegalStateException("the opening did not advance");
          }
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT h.head, k.* FROM (SELECT coalesce(max(sequence), 0) AS head"
                  + " FROM state.state_events WHERE tenant = ? AND workspace = ?) h"
                  + " LEFT JOIN LATERAL (SELECT * FROM state.host_keys WHERE tenant = ?"
                  + " AND removed_at IS NULL AND (workspace IS NULL OR workspace = ?)) k ON true")) {
        ps.setString(1, TENANT);
        ps.setString(2, workspace);
        ps.setString(3, TENANT);
        ps.setString(4, workspace);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rs.getLong(1);
          }
        }
      }
    }
  }

  /** The jsonb payload of a real instance write, as the store wrote it. */
  private static String samplePayload(StateStore store) throws SQLException {
    store.record(finished("sample", 0, "create"), decode(finished("sample", 0, "create")));
    return store.history(TENANT, "sample").stream()
        .filter(e -> e.type().equals("instance_created"))
        .findFirst()
        .map(e -> toJson(e.event()))
        .orElseThrow();
  }

  private static String toJson(Object value) {
    try {
      return EventCodec.mapper().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One operation of a measured series: its {@code i}-th. */
  private interface Op {
    void run(int i) throws SQLException;
  }

  /**
   * Runs {@code n} rounds; in every round each of {@code ops} runs once (its {@code i}-th
   * operation), starting with a different one each round. Returns the latency in nanoseconds of
   * every operation of each series, and keeps each series' client CPU per operation ({@link
   * #CPU_PER_OP}).
   */
  private static double[][] interleaved(int n, Op... ops) throws SQLException {
    double[][] nanos = new double[ops.length][n];
    long[] cpu = new long[ops.length];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < ops.length; k++) {
        int s = (i + k) % ops.length;
        long cpuStart = CPU.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        ops[s].run(i);
        nanos[s][i] = System.nanoTime() - start;
        cpu[s] += CPU.getCurrentThreadCpuTime() - cpuStart;
      }
    }
    for (int s = 0; s < ops.length; s++) {
      CPU_PER_OP.put(nanos[s], (double) cpu[s] / n);
    }
    return nanos;
  }

  /** The {@code i}-th autocommit insert of the narrow raw row (five of the event's columns). */
  private static void rawInsert(HikariDataSource ds, String workspace, String payload, int i)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.raw_events (tenant, workspace, sequence, payload, created_at)"
              + " VALUES (?, ?, ?, ?::jsonb, ?)",
          TENANT,
          workspace,
          i + 1,
          payload,
          Instant.now());
    }
  }

  /**
   * The {@code i}-th autocommit insert of the same row a state event is (every column of {@code
   * state.state_events}, the values (a) writes) into a table with the same primary key and no other
   * constraint, index or trigger.
   */
  private static void rawRowInsert(HikariDataSource ds, String workspace, String payload, int i)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      Sql.update(
          c,
          "INSERT INTO state.raw_event_rows (tenant, workspace, sequence, event_id, run_id,"
              + " action_id, actor, type, address, payload, created_at)"
              + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)",
          eventRow(workspace, i + 1, i, payload));
    }
  }

  /**
   * The values of the {@code i}-th event row of {@code workspace} at {@code sequence}, in the
   * column order of {@code state.state_events}: the row (a) writes, as the raw whole-row insert and
   * the unchecked insert write it too.
   */
  private static Object[] eventRow(String workspace, long sequence, int i, String payload) {
    return new Object[] {
      TENANT,
      workspace,
      sequence,
      workspace + "-event-" + i,
      "run-" + workspace,
      "act-" + i,
      "executor:exec-1",
      "instance_updated",
      "stateful_provisioning.app",
      payload,
      Instant.now()
    };
  }

  /**
   * The {@code i}-th event append through the store's append primitive, {@link
   * dev.stagecraft.state.adapter.db.EventAppend#appendOne} (ADR 0027): one event at the workspace's
   * next sequence ({@code head + i + 1}, the head the previous answer gave), idempotent by event
   * id, with its tenant and its fencing token, known to be the newest at that head from the
   * previous answer (ADR 0052) — and no version row, snapshot or outcome. One bare autocommit
   * insert; the first append of a series finds no fencing row (newest 0 at its head) and goes
   * through {@code state.append_events}, which makes token 1 the newest, as in service. With {@code
   * viaFunction}: one call of {@code state.append_events} (V7, ADR 0021: {@code FOR UPDATE},
   * plpgsql), for comparison.
   */
  private static void primitive(
      HikariDataSource ds, String workspace, String payload, long head, int i, boolean viaFunction)
      throws SQLException {
    String status;
    if (viaFunction) {
      status = functionCall(ds, workspace, payload, head + i, i);
    } else {
      try (Connection c = ds.getConnection()) {
        status =
            EventAppend.appendOne(
                    c,
                    TENANT,
                    workspace,
                    head + i,
                    i == 0 ? 0 : 1,
                    1,
                    workspace + "-event-" + i,
                    "run-" + workspace,
                    "act-" + i,
                    "executor:exec-1",
                    "instance_updated",
                    "stateful_provisioning.app",
                    payload,
                    Instant.now())
                .status();
      }
    }
    if (!"appended".equals(status)) {
      throw new IllegalStateException("append answered " + status);
    }
  }

  /**
   * The {@code i}-th insert of the event row alone into {@code state.state_events}, at {@code head
   * + i + 1}, {@code ON CONFLICT DO NOTHING}: since ADR 0052 the statement (a) sends, issued here
   * without the primitive around it; before, the floor of any append that keeps the event table's
   * two unique keys.
   */
  private static void bareInsert(
      HikariDataSource ds, String workspace, String payload, long head, int i) throws SQLException {
    int inserted;
    try (Connection c = ds.getConnection()) {
      inserted =
          Sql.update(
              c,
              "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                  + " action_id, actor, type, address, payload, created_at)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?) ON CONFLICT DO NOTHING",
              eventRow(workspace, head + i + 1, i, payload));
    }
    if (inserted != 1) {
      throw new IllegalStateException("the bare insert wrote " + inserted + " rows");
    }
  }

  /** One autocommit call of {@code state.append_events} (V7) appending one event. */
  private static String functionCall(
      HikariDataSource ds, String workspace, String payload, long head, int i) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT status FROM state.append_events(?, ?, ?, 1, true, ARRAY[?], ?, ?, ?,"
                    + " ARRAY['instance_updated'], ARRAY[?], ARRAY[?::jsonb], NULL, NULL, NULL,"
                    + " NULL, NULL, NULL, NULL, NULL, ?)")) {
      ps.setString(1, TENANT);
      ps.setString(2, workspace);
      ps.setLong(3, head);
      ps.setString(4, workspace + "-event-" + i);
      ps.setString(5, "run-" + workspace);
      ps.setString(6, "act-" + i);
      ps.setString(7, "executor:exec-1");
      ps.setString(8, "stateful_provisioning.app");
      ps.setString(9, payload);
      ps.setTimestamp(10, Timestamp.from(Instant.now()));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  /**
   * A series of {@link StateStore#record} calls of {@code workspace}'s action results {@code from},
   * {@code from + 1}, ... (its first a create, then updates): the {@code i}-th operation records
   * result {@code from + i}. The executor's envelopes are built and decoded beforehand, so only the
   * store's work is timed.
   */
  private static Op records(StateStore store, String workspace, int from, int n) {
    EventEnvelope[] envelopes = new EventEnvelope[n];
    ActionFinished[] decoded = new ActionFinished[n];
    for (int i = 0; i < n; i++) {
      int index = from + i;
      envelopes[i] = finished(workspace, index, index == 0 ? "create" : "update");
      decoded[i] = decode(envelopes[i]);
    }
    return i -> store.record(envelopes[i], decoded[i]);
  }

  /**
   * Loads {@code fill} instance writes into the store directly (1,000 per workspace {@code w0, w1,
   * ...}, all on one address, with their version rows), in batches of 100,000 rows.
   *
   * @return the number of events in the store afterwards
   */
  private static long bulkLoad(HikariDataSource ds, String payload, int fill) throws SQLException {
    long started = System.nanoTime();
    try (Connection c = ds.getConnection()) {
      for (int from = 0; from < fill; from += 100_000) {
        int to = Math.min(fill, from + 100_000);
        Sql.update(
            c,
            "INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id,"
                + " action_id, actor, type, address, payload, created_at)"
                + " SELECT ?, 'w' || (g / 1000), g % 1000 + 1, 'bulk-' || g, 'bulk-run',"
                + " 'act-' || g, 'bench', CASE WHEN g % 1000 = 0 THEN 'instance_created'"
                + " ELSE 'instance_updated' END, 'stateful_provisioning.app', ?::jsonb, now()"
                + " FROM generate_series(?, ?) g",
            TENANT,
            payload,
            from,
            to - 1);
      }
      // the steady state autovacuum reaches: statistics and the visibility map, so that its run
      // on the million new rows does not fall into the measured series
      Sql.update(c, "VACUUM (ANALYZE) state.state_events");
      try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM state.state_events");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        OUT.printf(
            Locale.ROOT,
            "(bulk-loaded %d events in %.1f s)%n",
            fill,
            (System.nanoTime() - started) / 1e9);
        return rs.getLong(1);
      }
    }
  }

  private static EventEnvelope finished(String workspace, int i, String action) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    attributes.put("id", "i-" + i);
    attributes.put("revision", "r" + i);
    attributes.put("host", "10.0.0." + (i % 250));
    String address = "stateful_provisioning.app";
    return EXECUTOR.wrap(
        TENANT,
        workspace,
        "run-" + workspace,
        1,
        address,
        new ActionFinished(
            "run-" + workspace,
            "act-" + i,
            address,
            "stateful_provisioning",
            action,
            "succeeded",
            null,
            null,
            attributes,
            List.of("stateful_provisioning.db"),
            1,
            "exec-1"));
  }

  private static ActionFinished decode(EventEnvelope envelope) {
    return EventCodec.data(envelope, ActionFinished.class);
  }

  /**
   * One line of the append table: {@code nanos} against {@code baseline} (the narrow raw insert)
   * and {@code rowBaseline} (the raw insert of the event's whole row), both measured beside it.
   */
  private static void row(String name, double[] nanos, double[] baseline, double[] rowBaseline) {
    double opsPerSecond = nanos.length / (Arrays.stream(nanos).sum() / 1e9);
    double baselineOps = baseline.length / (Arrays.stream(baseline).sum() / 1e9);
    double rowBaselineOps = rowBaseline.length / (Arrays.stream(rowBaseline).sum() / 1e9);
    OUT.printf(
        Locale.ROOT,
        "| %s | %.0f | %.3f | %.2f | %.3f | %.2fx | %.2fx | %.2fx | %.2fx |%n",
        name,
        opsPerSecond,
        percentile(nanos, 50) / 1e6,
        percentile(nanos, 99) / 1e6,
        CPU_PER_OP.getOrDefault(nanos, Double.NaN) / 1e6,
        opsPerSecond / baselineOps,
        percentile(baseline, 50) / percentile(nanos, 50),
        opsPerSecond / rowBaselineOps,
        percentile(rowBaseline, 50) / percentile(nanos, 50));
  }

  private static double percentile(double[] nanos, int p) {
    double[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
  }
}
