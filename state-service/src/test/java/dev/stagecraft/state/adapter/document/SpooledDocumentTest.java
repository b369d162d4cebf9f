package dev.stagecraft.state.adapter.document;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.servicekit.http.Problem;
import dev.stagecraft.state.history.DocumentDecider;
import dev.stagecraft.state.history.TerraformStateValidator;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Receiving a pushed document as a stream: the streaming validation reports exactly what {@link
 * TerraformStateValidator} reports for the parsed document, bad bytes are refused with the reason,
 * and nothing stays on disk.
 */
class SpooledDocumentTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  static Map<String, Object> realistic() throws IOException {
    try (InputStream in =
        SpooledDocumentTest.class.getResourceAsStream("/terraform/realistic-v4.tfstate")) {
      return JSON.readValue(in, new TypeReference<>() {});
    }
  }

  private SpooledDocument receive(byte[] body, String md5, long max) throws IOException {
    return SpooledDocument.receive(new ByteArrayInputStream(body), md5, max, dir);
  }

  private static Map<String, Object> copy(Map<String, Object> doc) throws IOException {
    return JSON.readValue(JSON.writeValueAsBytes(doc), new TypeReference<>() {});
  }

  @Test
  void aValidDocumentIsKeptWithItsDigestsSerialAndLineageAndNoProblems() throws Exception {
    byte[] body = JSON.writeValueAsBytes(realistic());
    try (SpooledDocument doc = receive(body, null, Long.MAX_VALUE)) {
      assertThat(doc.problems()).isEmpty();
      assertThat(doc.document().serial()).isEqualTo(17);
      assertThat(doc.document().lineage()).isEqualTo("3f2c8a4e-6b1d-4b7e-9a51-0c2f7d1e9b64");
      assertThat(doc.document().size()).isEqualTo(body.length);
      assertThat(doc.document().md5())
          .isEqualTo(
              Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(body)));
      assertThat(doc.document().digest())
          .isEqualTo(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
      try (InputStream in = doc.open()) {
        assertThat(in.readAllBytes()).isEqualTo(body);
      }
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).as("closing deletes the file").isEmpty();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void reportsExactlyTheValidatorsProblemsForMalformedDocuments() throws Exception {
    List<Map<String, Object>> bad = new ArrayList<>();
    Map<String, Object> doc = realistic();
    doc.put("version", 3);
    doc.remove("lineage");
    List<Object> resources = (List<Object>) doc.get("resources");
    Map<String, Object> web = (Map<String, Object>) resources.get(1);
    Map<String, Object> second = (Map<String, Object>) ((List<Object>) web.get("instances")).get(1);
    second.put("status", "broken");
    second.put("index_key", 1.5);
    ((Map<String, Object>) resources.get(2)).put("mode", "resource");
    bad.add(doc);

    Map<String, Object> duplicate = realistic();
    List<Object> instances =
        (List<Object>)
            ((Map<String, Object>) ((List<Object>) duplicate.get("resources")).get(1))
                .get("instances");
    instances.add(copy((Map<String, Object>) instances.get(0)));
    bad.add(duplicate);

    Map<String, Object> noResources = realistic();
    noResources.put("resources", "none");
    noResources.put("outputs", Map.of("x", Map.of("value", 1)));
    bad.add(noResources);

    Map<String, Object> oddResources = realistic();
    List<Object> odd = (List<Object>) oddResources.get("resources");
    odd.add(1);
    Map<String, Object> noInstances = new LinkedHashMap<>();
    noInstances.put("instances", 5);
    noInstances.put("mode", "managed");
    odd.add(noInstances);
    bad.add(oddResources);

    for (Map<String, Object> document : bad) {
      List<String> expected = TerraformStateValidator.validate(copy(document));
      assertThat(expected).isNotEmpty();
      try (SpooledDocument spooled = receive(JSON.writeValueAsBytes(document), null, 1 << 30)) {
        assertThat(spooled.problems()).isEqualTo(expected);
      }
    }
    try (SpooledDocument notAnObject =
        receive("[1,2]".getBytes(StandardCharsets.UTF_8), null, 99)) {
      assertThat(notAnObject.problems())
          .containsExactly("$: a Terraform state must be a JSON object");
    }
  }

  @Test
  void refusesBadBytesWithTheReasonAndKeepsNothing() throws Exception {
    byte[] body = JSON.writeValueAsBytes(realistic());
    assertThatThrownBy(() -> receive("{\"version\":4,".getBytes(StandardCharsets.UTF_8), null, 99))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(400);
              assertThat(p.getMessage()).contains("not valid JSON").contains("line 1");
            });
    assertThatThrownBy(
            () -> receive("{\"serial\":1,\"serial\":2}".getBytes(StandardCharsets.UTF_8), null, 99))
        .isInstanceOfSatisfying(
            Problem.class, p -> assertThat(p.getMessage()).contains("Duplicate field 'serial'"));
    assertThatThrownBy(() -> receive("{} {}".getBytes(StandardCharsets.UTF_8), null, 99))
        .isInstanceOfSatisfying(
            Problem.class, p -> assertThat(p.getMessage()).contains("trailing content"));
    assertThatThrownBy(() -> receive(new byte[0], null, 99))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.getMessage()).contains("empty"));
    assertThatThrownBy(() -> receive(body, "AAAAAAAAAAAAAAAAAAAAAA==", Long.MAX_VALUE))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(400);
              assertThat(p.getMessage()).contains("Content-MD5").contains("nothing was stored");
            });
    assertThatThrownBy(() -> receive(body, null, body.length - 1))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> {
              assertThat(p.status()).isEqualTo(413);
              assertThat(p.getMessage()).contains("stagecraft.state.max-document-size");
            });
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void readsTheBodyOnceYetReportsAWrongMd5BeforeBrokenJsonAndTheLimitBeforeBoth() throws Exception {
    // the parser stops at the syntax error early on; the rest of the body is still received
    byte[] broken = ("{\"version\":4,]" + " ".repeat(200_000)).getBytes(StandardCharsets.UTF_8);
    String brokenMd5 =
        Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(broken));
    assertThatThrownBy(() -> receive(broken, "AAAAAAAAAAAAAAAAAAAAAA==", Long.MAX_VALUE))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> assertThat(p.getMessage()).contains("Content-MD5").contains(brokenMd5));
    assertThatThrownBy(() -> receive(broken, brokenMd5, Long.MAX_VALUE))
        .isInstanceOfSatisfying(
            Problem.class,
            p -> assertThat(p.getMessage()).contains("not valid JSON").contains("column 14"));
    assertThatThrownBy(() -> receive(broken, "AAAAAAAAAAAAAAAAAAAAAA==", broken.length - 1))
        .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.status()).isEqualTo(413));

    byte[] body = JSON.writeValueAsBytes(realistic());
    try (SpooledDocument doc = receive(body, null, Long.MAX_VALUE);
        InputStream in = doc.open()) {
      assertThat(in.readAllBytes()).as("the spooled copy is the whole body").isEqualTo(body);
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).isEmpty();
    }
  }

  @Test
  void aCopyWithAnotherSerialChangesOnlyTheSerial() throws Exception {
    Map<String, Object> original = realistic();
    try (SpooledDocument doc = receive(JSON.writeValueAsBytes(original), null, Long.MAX_VALUE)) {
      SpooledDocument rewritten = doc.withSerial(42);
      assertThat(rewritten.document().serial()).isEqualTo(42);
      assertThat(rewritten.document().lineage()).isEqualTo(doc.document().lineage());
      assertThat(rewritten.document().digest()).isNotEqualTo(doc.document().digest());
      Map<String, Object> expected = copy(original);
      expected.put("serial", 42);
      assertThat(DocumentDecider.sameJson(rewritten.parse(), expected)).isTrue();
    }
    try (Stream<Path> left = Files.list(dir)) {
      assertThat(left).as("the copy goes with the original").isEmpty();
    }
  }
}
