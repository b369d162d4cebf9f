package dev.stagecraft.cli.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.stagecraft.cli.CliContext;
import dev.stagecraft.cli.UsageException;
import dev.stagecraft.cli.modules.GitModules;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A plan saved with {@code plan -out=FILE}: what to send to apply it (workspace, configuration
 * files, the SHA-256 of the supporting files — not their content, which may be a key — variables,
 * replace addresses) and what it must still be when applied (the state serial it was planned
 * against and the plan's digest). The file also holds the plan itself (Terraform's JSON
 * representation) for people and tools to read. Written with owner-only permissions.
 */
final class SavedPlan {
  static final String FORMAT = "stagecraft-saved-plan";
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private SavedPlan() {}

  /**
   * @param sensitive the values of the sensitive variables given (name → value): only their names
   *     and {@link SecretFingerprint}s are written
   */
  static void write(
      Path file, Map<String, Object> request, JsonNode planResponse, Map<String, String> sensitive)
      throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("format", FORMAT);
    doc.put("format_version", 1);
    // supporting files (scripts, keys read by key_file) are not copied into the plan file: only
    // their SHA-256, checked against the directory's files when the plan is applied (ADR 0024)
    Map<String, Object> saved = new LinkedHashMap<>(request);
    if (saved.remove("supportFiles") instanceof Map<?, ?> support) {
      Map<String, String> digests = new TreeMap<>();
      support.forEach((path, base64) -> digests.put((String) path, digest((String) base64)));
      saved.put("supportFileDigests", digests);
    }
    doc.put("request", saved);
    doc.put("sensitive_variables", new TreeSet<>(sensitive.keySet()));
    // apply FILE checks that each value given again is the one planned with (not stored)
    Map<String, String> fingerprints = new TreeMap<>();
    sensitive.forEach((name, value) -> fingerprints.put(name, SecretFingerprint.of(value)));
    doc.put("sensitive_fingerprints", fingerprints);
    doc.put("prior_serial", planResponse.get("prior_serial").asLong());
    doc.put("digest", planResponse.get("digest").asText());
    doc.put("plan", planResponse.get("plan"));
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, MAPPER.writeValueAsString(doc));
    try {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: keep the default permissions
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
  }

  /** SHA-256 (hex) of a supporting file given as base64. */
  private static String digest(String base64) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(Base64.getDecoder().decode(base64)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static boolean fingerprintMatches(Path file, String fingerprint, String value) {
    try {
      return SecretFingerprint.matches(fingerprint, value);
    } catch (IllegalArgumentException e) {
      throw new UsageException(
          file + " is damaged (a sensitive variable's fingerprint cannot be read): plan again");
    }
  }

  /**
   * The saved plan file as written ({@code digest}, {@code prior_serial}, {@code plan}, …); call
   * after {@link #readRunRequest}, which checks that it is one.
   */
  static JsonNode readFile(Path file) throws IOException {
    return MAPPER.readTree(file.toFile());
  }

  /**
   * The run request that applies exactly the saved plan. Values of sensitive variables were not
   * saved: they come again from {@code TF_VAR_name} / {@code STAGECRAFT_VAR_name} and must be the
   * values the plan was made with (checked against their {@link SecretFingerprint}s; a plan file
   * saved before they were written is checked by the plan digest only).
   */
  @SuppressWarnings("unchecked")
  static Map<String, Object> readRunRequest(Path file, CliContext ctx) throws IOException {
    if (!Files.isRegularFile(file)) {
      throw new UsageException("the saved plan " + file + " does not exist");
    }
    JsonNode doc;
    try {
      doc = MAPPER.readTree(file.toFile());
    } catch (IOException e) {
      throw new UsageException(file + " is not a saved plan (not JSON): " + e.getMessage());
    }
    if (!FORMAT.equals(doc.path("format").asText())) {
      throw new UsageException(
          file + " is not a saved plan (create one with stagecraft plan -out=" + file + ")");
    }
    Map<String, Object> request = MAPPER.convertValue(doc.get("request"), LinkedHashMap.class);
    Map<String, Object> variables =
        new LinkedHashMap<>((Map<String, Object>) request.getOrDefault("variables", Map.of()));
    for (JsonNode name : doc.path("sensitive_variables")) {
      String value = ctx.env("STAGECRAFT_VAR_" + name.asText());
      if (value == null) {
        value = ctx.env("TF_VAR_" + name.asText());
      }
      if (value == null) {
        throw new UsageException(
            "the saved plan was made with a value for the sensitive variable \""
                + name.asText()
                + "\", which is not stored in the plan file: set TF_VAR_"
                + name.asText()
                + " (or STAGECRAFT_VAR_"
                + name.asText()
                + ") to the same value to apply it");
      }
      JsonNode fingerprint = doc.path("sensitive_fingerprints").path(name.asText());
      if (fingerprint.isTextual() && !fingerprintMatches(file, fingerprint.asText(), value)) {
        throw new UsageException(
            "the value of the sensitive variable \""
                + name.asText()
                + "\" is not the one the plan was made with: set TF_VAR_"
                + name.asText()
                + " (or STAGECRAFT_VAR_"
                + name.asText()
                + ") to that value, or plan again with the new one");
      }
      variables.put(name.asText(), value);
    }
    request.put("variables", variables);
    if (request.remove("supportFileDigests") instanceof Map<?, ?> digests) {
      Map<String, String> support;
      try {
        // the git modules of the lock file, from the cache (as the plan was made with them)
        support =
            ConfigDirectory.readSupportFiles(
                ctx.workingDir(),
                GitModules.prepare(
                    ctx.workingDir(),
                    ctx.env(),
                    (Map<String, String>) request.get("files"),
                    false));
      } catch (GitModules.Failure e) {
        throw new UsageException(e.getMessage());
      }
      Map<String, String> now = new TreeMap<>();
      support.forEach((path, base64) -> now.put(path, digest(base64)));
      if (!now.equals(new TreeMap<>(digests))) {
        Set<String> differ = new TreeSet<>(now.keySet());
        differ.addAll((Set<String>) digests.keySet());
        differ.removeIf(path -> Objects.equals(now.get(path), digests.get(path)));
        throw new UsageException(
            "the supporting files of the configuration changed since the plan was saved ("
                + String.join(", ", differ)
                + "): apply it from the directory it was planned in, or plan again");
      }
      request.put("supportFiles", support);
    }
    request.put("expectedSerial", doc.get("prior_serial").asLong());
    request.put("expectedDigest", doc.get("digest").asText());
    return request;
  }
}
