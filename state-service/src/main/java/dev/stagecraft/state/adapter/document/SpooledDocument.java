package dev.stagecraft.state.adapter.document;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.application.PushLog;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.TerraformStateValidator;
import dev.stagecraft.state.history.TerraformStateValidator.ResourceCheck;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * An uploaded state document held once, in a temporary file, never in memory (ADR 0022). {@link
 * #receive} reads the request body once: a streaming JSON parser reads it through a tee that copies
 * it to the file while it computes the MD5 (checked against {@code Content-MD5}) and the SHA-256
 * (the document's key) and enforces the size limit; the parser checks the syntax (strict: duplicate
 * keys and trailing content are errors) and applies {@link TerraformStateValidator}'s rules to the
 * top-level fields, each output and each resource instance one at a time (ADR 0026: one pass
 * instead of spooling, then reading the file again). What stays in memory is one instance (or the
 * outputs) at a time and the set of instance addresses.
 *
 * <p>The push use case's {@code PushLog.Upload}: what the store reads of a spooled push.
 *
 * <p>Not thread-safe: one request uses it, then {@link #close closes} it, which deletes the file
 * (and any copy {@link #withSerial} made).
 */
public final class SpooledDocument implements PushLog.Upload, AutoCloseable {
  /** Parsers and generators: duplicate keys are errors. */
  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  /** Reads one value at the parser's position; decimals keep their precision. */
  private static final ObjectMapper VALUES =
      new ObjectMapper(FACTORY).enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private static final int PIECE = 64 * 1024;

  private final Path file;
  private final StoredDocument document;
  private final List<String> problems;
  private final List<SpooledDocument> copies = new ArrayList<>();

  private SpooledDocument(Path file, StoredDocument document, List<String> problems) {
    this.file = file;
    this.document = document;
    this.problems = List.copyOf(problems);
  }

  /**
   * Receives an upload: copies {@code body} to a temporary file under {@code directory}, checks
   * {@code contentMd5} (base64, as Terraform sends it) when given, the size limit and the JSON
   * syntax, and validates the v4 document (problems are kept, not thrown: the decision reports them
   * with the other refusals).
   *
   * @param body the request body, or null for none
   * @param maxSize the largest document accepted, in bytes
   * @throws Problem 400 for an empty body, a wrong {@code Content-MD5} or invalid JSON; 413 over
   *     {@code maxSize} (nothing is kept in any case)
   */
  public static SpooledDocument receive(
      InputStream body, String contentMd5, long maxSize, Path directory) throws IOException {
    Path file = Files.createTempFile(directory, "state-upload-", ".json");
    boolean kept = false;
    try {
      Receiving receiving =
          new Receiving(
              body,
              new BufferedOutputStream(Files.newOutputStream(file), PIECE),
              maxSize,
              () -> tooLarge(maxSize));
      // one pass: the parser reads the body through the tee that spools and digests it
      Scan scan;
      JacksonException invalid = null;
      try {
        try {
          scan = scan(receiving);
        } catch (JacksonException e) {
          scan = null;
          invalid = e;
        }
        receiving.drain(); // digests and size cover the whole body, whatever the parser read
      } finally {
        receiving.closeFile();
      }
      Digests digests = receiving.digests();
      if (digests.size == 0) {
        throw Problem.badRequest("the body is empty: send a Terraform state v4 JSON document");
      }
      checkMd5(contentMd5, digests);
      if (invalid != null) {
        throw notJson(invalid);
      }
      SpooledDocument document =
          new SpooledDocument(file, reference(digests, scan.top()), scan.problems());
      kept = true;
      return document;
    } finally {
      if (!kept) {
        Files.deleteIfExists(file);
      }
    }
  }

  /**
   * Receives an upload of a known {@code length} without a file (ADR 0031): the validating parser
   * reads {@code body} through the same tee as {@link #receive}, which writes every byte to {@code
   * sink} as it passes (the content row being written on another thread) while it computes both
   * digests. The checks and their order are {@link #receive}'s, plus the length: a body longer or
   * shorter than {@code length} is refused. {@code sink} is not closed: the caller ends it (or
   * aborts it when this throws).
   *
   * @param length the body's declared length ({@code Content-Length}), within the size limit
   * @throws Problem 400 for a body whose length is not {@code length}, a wrong {@code Content-MD5}
   *     or invalid JSON
   * @throws IOException when the body cannot be read or {@code sink} refuses the bytes
   */
  public static PushLog.Received receiveStreamed(
      InputStream body, String contentMd5, long length, OutputStream sink) throws IOException {
    Receiving receiving =
        new Receiving(
            body,
            sink,
            length,
            () ->
                Problem.badRequest(
                    "the body is longer than its Content-Length ("
                        + length
                        + " bytes); nothing was stored, send it again"));
    Scan scan;
    JacksonException invalid = null;
    try {
      scan = scan(receiving);
    } catch (JacksonException e) {
      scan = null;
      invalid = e;
    }
    receiving.drain();
    Digests digests = receiving.digests();
    if (digests.size != length) {
      throw Problem.badRequest(
          "the body ended after "
              + digests.size
              + " bytes but its Content-Length is "
              + length
              + ": the upload was cut short; nothing was stored, send it again");
    }
    checkMd5(contentMd5, digests);
    if (invalid != null) {
      throw notJson(invalid);
    }
    return new PushLog.Received(reference(digests, scan.top()), scan.problems());
  }

  private static void checkMd5(String contentMd5, Digests digests) {
    if (contentMd5 != null && !contentMd5.isBlank() && !digests.md5.equals(contentMd5.trim())) {
      throw Problem.badRequest(
          "Content-MD5 "
              + contentMd5.trim()
              + " does not match the body received (MD5 "
              + digests.md5
              + "): the upload was corrupted or changed in transit; nothing was stored, send it"
              + " again");
    }
  }

  /** The stored form's reference: digests, size, and (when valid) serial and lineage. */
  @Override
  public StoredDocument document() {
    return document;
  }

  /** {@link TerraformStateValidator}'s problems; empty when the document is valid. */
  @Override
  public List<String> problems() {
    return problems;
  }

  /** The bytes, from the start (a new stream each call; the caller closes it). */
  @Override
  public InputStream open() throws IOException {
    return new BufferedInputStream(Files.newInputStream(file), PIECE);
  }

  /**
   * The whole document as plain JSON values (maps, lists, BigDecimal for decimals). Holds it in
   * memory: only for the rare comparison of a same-serial upload with different bytes.
   */
  @Override
  public Object parse() {
    try (InputStream in = open()) {
      return VALUES.readValue(in, Object.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A copy whose top-level {@code serial} is {@code serial} (a forced push over a newer state),
   * written by a streaming copy of every other token as it is (numbers exactly); compact JSON.
   * Deleted with this one.
   */
  @Override
  public SpooledDocument withSerial(long serial) {
    try {
      Path copy = Files.createTempFile(file.getParent(), "state-upload-", ".json");
      try (InputStream in = open();
          JsonParser p = FACTORY.createParser(in);
          OutputStream out = new BufferedOutputStream(Files.newOutputStream(copy), PIECE);
          JsonGenerator g = FACTORY.createGenerator(out)) {
        p.nextToken();
        g.writeStartObject();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String name = p.currentName();
          p.nextToken();
          g.writeFieldName(name);
          if (name.equals("serial")) {
            g.writeNumber(serial);
            p.skipChildren();
          } else {
            g.copyCurrentStructureExact(p);
          }
        }
        g.writeEndObject();
      }
      Digests digests;
      try (InputStream in = Files.newInputStream(copy)) {
        digests = copy(in, null, Long.MAX_VALUE);
      }
      SpooledDocument rewritten =
          new SpooledDocument(
              copy,
              new StoredDocument(
                  digests.sha256, digests.md5, digests.size, serial, document.lineage()),
              problems);
      copies.add(rewritten);
      return rewritten;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes the file and the copies. */
  @Override
  public void close() {
    for (SpooledDocument copy : copies) {
      copy.close();
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Digests(String md5, String sha256, long size) {}

  /** Copies {@code in} to {@code file} (null: only digests it), digesting and counting. */
  private static Digests copy(InputStream in, Path file, long maxSize) throws IOException {
    MessageDigest md5 = messageDigest("MD5");
    MessageDigest sha256 = messageDigest("SHA-256");
    long size = 0;
    if (in != null) {
      try (OutputStream out =
          file == null ? OutputStream.nullOutputStream() : Files.newOutputStream(file)) {
        byte[] piece = new byte[PIECE];
        for (int n; (n = in.read(piece)) > 0; ) {
          size += n;
          if (size > maxSize) {
            throw tooLarge(maxSize);
          }
          md5.update(piece, 0, n);
          sha256.update(piece, 0, n);
          out.write(piece, 0, n);
        }
      }
    }
    return new Digests(
        Base64.getEncoder().encodeToString(md5.digest()),
        HexFormat.of().formatHex(sha256.digest()),
        size);
  }

  private static MessageDigest messageDigest(String algorithm) {
    try {
      return MessageDigest.getInstance(algorithm);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What the validating pass found: the top-level fields it read and the problems. */
  private record Scan(Map<String, Object> top, List<String> problems) {}

  /**
   * One streaming pass of {@code in}: syntax, then the validator's rules, part by part.
   *
   * @throws JacksonException when {@code in} is not one JSON value (the caller reports it)
   */
  private static Scan scan(InputStream in) throws IOException {
    List<String> problems = new ArrayList<>();
    Map<String, Object> top = new LinkedHashMap<>();
    try (JsonParser p = FACTORY.createParser(in)) {
      JsonToken first = p.nextToken();
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        requireEnd(p);
        problems.add("$: a Terraform state must be a JSON object");
        return new Scan(top, problems);
      }
      boolean resourcesList = false;
      Object resources = null;
      List<String> resourceProblems = new ArrayList<>();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "resources" -> {
            if (value == JsonToken.START_ARRAY) {
              resourcesList = true;
              resources(p, resourceProblems);
            } else {
              resourcesList = false;
              resources = VALUES.readValue(p, Object.class);
            }
          }
          case "version", "terraform_version", "serial", "lineage", "outputs" ->
              top.put(name, VALUES.readValue(p, Object.class));
          default -> p.skipChildren();
        }
      }
      requireEnd(p);
      problems.addAll(TerraformStateValidator.validateHeader(top));
      if (resourcesList) {
        problems.addAll(resourceProblems);
      } else {
        problems.add(TerraformStateValidator.resourcesNotAList(resources));
      }
      return new Scan(top, problems);
    }
  }

  /** The 400 for a body that is not one JSON value. */
  private static Problem notJson(JacksonException e) {
    if (e instanceof JsonParseException) {
      return Problem.badRequest(
          "the body is not valid JSON: "
              + e.getOriginalMessage()
              + " at line "
              + e.getLocation().getLineNr()
              + ", column "
              + e.getLocation().getColumnNr()
              + "; nothing was stored");
    }
    return Problem.badRequest("the body is not valid JSON: " + e.getOriginalMessage());
  }

  /**
   * The request body as the validating parser reads it, teed into {@code out} (the spool file, or
   * the pipe into the content row) and both digests as it passes, with the size limit enforced on
   * every read ({@code over} thrown as soon as it is exceeded). {@link #close} does nothing (the
   * parser closes its source when it ends; the body may have more to drain): {@link #closeFile}
   * closes {@code out}.
   */
  private static final class Receiving extends InputStream {
    private final InputStream body;
    private final OutputStream out;
    private final long maxSize;
    private final Supplier<Problem> over;
    private final MessageDigest md5 = messageDigest("MD5");
    private final MessageDigest sha256 = messageDigest("SHA-256");
    private long size;

    Receiving(InputStream body, OutputStream out, long maxSize, Supplier<Problem> over) {
      this.body = body == null ? InputStream.nullInputStream() : body;
      this.out = out;
      this.maxSize = maxSize;
      this.over = over;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = body.read(b, off, len);
      if (n > 0) {
        size += n;
        if (size > maxSize) {
          throw over.get();
        }
        md5.update(b, off, n);
        sha256.update(b, off, n);
        out.write(b, off, n);
      }
      return n;
    }

    /** Reads what the parser left (nothing after a valid document but whitespace). */
    void drain() throws IOException {
      byte[] piece = new byte[PIECE];
      while (read(piece, 0, piece.length) >= 0) {
        // teed and digested by read
      }
    }

    Digests digests() {
      return new Digests(
          Base64.getEncoder().encodeToString(md5.digest()),
          HexFormat.of().formatHex(sha256.digest()),
          size);
    }

    @Override
    public void close() {}

    void closeFile() throws IOException {
      out.close();
    }
  }

  private static Problem tooLarge(long maxSize) {
    return new Problem(
        Problem.typeFor("State document too large"),
        413,
        "State document too large",
        "the state document is larger than "
            + maxSize
            + " bytes, the limit of this service (stagecraft.state.max-document-size);"
            + " nothing was stored",
        null);
  }

  /** After the root value: nothing but whitespace may follow. */
  private static void requireEnd(JsonParser p) throws IOException {
    if (p.nextToken() != null) {
      throw new JsonParseException(p, "trailing content after the JSON document");
    }
  }

  private static StoredDocument reference(Digests digests, Map<String, Object> top) {
    long serial = top.get("serial") instanceof Number n && n.longValue() >= 0 ? n.longValue() : 0;
    String lineage = top.get("lineage") instanceof String s ? s : "";
    return new StoredDocument(digests.sha256, digests.md5, digests.size, serial, lineage);
  }

  /** What {@link TerraformStateValidator#instance} checks of an instance object. */
  private static final Set<String> INSTANCE_FIELDS =
      Set.of(
          "index_key",
          "status",
          "schema_version",
          "dependencies",
          "create_before_destroy",
          "skip_destroy",
          "deposed");

  /**
   * The fields of the instance object at the parser that the validator looks at, the parser left at
   * its end. The bulk of an instance — {@code attributes}, {@code sensitive_attributes}, {@code
   * private} — is only type-checked, so it is skipped, not built: an object stands in as an empty
   * map, a list as an empty list; any other value is read (the validator describes it).
   */
  private static Map<String, Object> instanceFields(JsonParser p) throws IOException {
    Map<String, Object> fields = new LinkedHashMap<>();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (INSTANCE_FIELDS.contains(name)) {
        fields.put(name, VALUES.readValue(p, Object.class));
      } else if (name.equals("attributes")
          || name.equals("attributes_flat")
          || name.equals("sensitive_attributes")) {
        if (value == JsonToken.START_OBJECT) {
          fields.put(name, Map.of());
          p.skipChildren();
        } else if (value == JsonToken.START_ARRAY) {
          fields.put(name, List.of());
          p.skipChildren();
        } else {
          fields.put(name, VALUES.readValue(p, Object.class));
        }
      } else {
        p.skipChildren();
      }
    }
    return fields;
  }

  /** The resources array, from its first element on; one instance in memory at a time. */
  private static void resources(JsonParser p, List<String> problems) throws IOException {
    Set<String> addresses = new HashSet<>();
    int r = 0;
    for (JsonToken t; (t = p.nextToken()) != JsonToken.END_ARRAY; r++) {
      String path = "$.resources[" + r + "]";
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        problems.add(path + ": must be an object");
        continue;
      }
      Map<String, Object> header = new LinkedHashMap<>();
      List<String> instanceProblems = new ArrayList<>();
      boolean instancesList = false;
      Object instances = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "instances" -> {
            if (value != JsonToken.START_ARRAY) {
              instancesList = false;
              instances = VALUES.readValue(p, Object.class);
              continue;
            }
            instancesList = true;
            // Terraform writes module, mode, type, name, each and provider before instances; a
            // resource ordered otherwise is checked with the fields seen so far (and the fields
            // themselves once the resource ends).
            ResourceCheck check = TerraformStateValidator.resource(header, path, new ArrayList<>());
            int i = 0;
            while (p.nextToken() != JsonToken.END_ARRAY) {
              Object instance =
                  p.currentToken() == JsonToken.START_OBJECT
                      ? instanceFields(p)
                      : VALUES.readValue(p, Object.class);
              TerraformStateValidator.instance(check, instance, i++, addresses, instanceProblems);
            }
          }
          case "mode", "type", "name", "provider", "module", "each" ->
              header.put(name, VALUES.readValue(p, Object.class));
          default -> p.skipChildren();
        }
      }
      TerraformStateValidator.resource(header, path, problems);
      if (!instancesList) {
        problems.add(TerraformStateValidator.instancesNotAList(path, instances));
      }
      problems.addAll(instanceProblems);
    }
  }
}
