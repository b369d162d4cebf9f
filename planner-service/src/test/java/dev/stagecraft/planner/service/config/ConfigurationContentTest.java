package dev.stagecraft.planner.service.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

class ConfigurationContentTest {
  static final String MAIN = "resource \"stateful_provisioning\" \"a\" { state_key = \"1\" }\n";

  /** A ustar archive as {@code tar czf} writes it, built by hand (no tar library in the build). */
  static byte[] tarGz(Map<String, byte[]> entries, char type) throws IOException {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    for (var e : entries.entrySet()) {
      byte[] header = new byte[512];
      put(header, 0, e.getKey());
      put(header, 100, "0000644");
      put(header, 124, String.format("%011o", e.getValue().length));
      put(header, 136, "00000000000");
      header[156] = (byte) type;
      put(header, 257, "ustar");
      for (int i = 148; i < 156; i++) {
        header[i] = ' ';
      }
      long sum = 0;
      for (byte b : header) {
        sum += b & 0xff;
      }
      put(header, 148, String.format("%06o", sum));
      raw.write(header);
      raw.write(e.getValue());
      raw.write(new byte[(int) ((512 - e.getValue().length % 512) % 512)]);
    }
    raw.write(new byte[1024]);
    ByteArrayOutputStream gz = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
      out.write(raw.toByteArray());
    }
    return gz.toByteArray();
  }

  private static void put(byte[] header, int offset, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(b, 0, header, offset, b.length);
  }

  @Test
  void aTarGzAndTheSameFilesAsAMapHaveTheSameId() throws IOException {
    byte[] script = "#!/bin/sh\necho hi\n".getBytes(StandardCharsets.UTF_8);
    ConfigurationContent fromTar =
        ConfigurationContent.fromTarGz(
            new ByteArrayInputStream(
                tarGz(
                    new java.util.LinkedHashMap<>(
                        Map.of(
                            "./main.tf",
                            MAIN.getBytes(StandardCharsets.UTF_8),
                            "./scripts/run.sh",
                            script)),
                    '0')));
    ConfigurationContent fromMap =
        new ConfigurationContent(Map.of("main.tf", MAIN), Map.of("scripts/run.sh", script));
    assertThat(fromTar.files()).containsOnlyKeys("main.tf");
    assertThat(fromTar.supportFiles()).containsOnlyKeys("scripts/run.sh");
    assertThat(fromTar.id()).isEqualTo(fromMap.id());
  }

  @Test
  void anyChangedByteGivesAnotherId() {
    ConfigurationContent a = new ConfigurationContent(Map.of("main.tf", MAIN), Map.of());
    ConfigurationContent b = new ConfigurationContent(Map.of("main.tf", MAIN + " "), Map.of());
    ConfigurationContent renamed = new ConfigurationContent(Map.of("other.tf", MAIN), Map.of());
    assertThat(a.id()).isNotEqualTo(b.id()).isNotEqualTo(renamed.id());
  }

  @Test
  void linksAndNonArchivesAreRefusedWithWhatToDo() throws IOException {
    assertThatThrownBy(
            () ->
                ConfigurationContent.fromTarGz(
                    new ByteArrayInputStream(
                        tarGz(Map.of("main.tf", MAIN.getBytes(StandardCharsets.UTF_8)), '2'))))
        .isInstanceOf(ConfigurationContent.InvalidArchive.class)
        .hasMessageContaining("link");
    assertThatThrownBy(
            () ->
                ConfigurationContent.fromTarGz(
                    new ByteArrayInputStream("not gzip".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(ConfigurationContent.InvalidArchive.class)
        .hasMessageContaining("tar czf");
  }
}
