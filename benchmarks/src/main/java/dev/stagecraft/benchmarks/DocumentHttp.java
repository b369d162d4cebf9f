package dev.stagecraft.benchmarks;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;

/**
 * A client that behaves like Terraform's (Go {@code net/http}): one kept-alive HTTP/1.1 connection
 * with {@code TCP_NODELAY}, the request's head and body through one 64 KiB buffer (flushed when
 * full and at the end; no {@code Expect: 100-continue}), the answer read from a 64 KiB buffer, a
 * {@code Content-Length} or chunked body. Reconnects when the service closed the connection. One
 * request at a time; not thread-safe.
 */
final class DocumentHttp implements AutoCloseable {
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
    return Integer.parseInt(status.split(" ", -1)[1]);
  }

  /** Reads the answer's body into {@code sink} (or drops it when null); its length. */
  private long readBody(Sink sink) throws IOException {
    byte[] piece = new byte[1 << 16];
    if (chunked) {
      long total = 0;
      for (long size = Long.parseLong(line().split(";", -1)[0].trim(), 16);
          size > 0;
          size = Long.parseLong(line().split(";", -1)[0].trim(), 16)) {
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
