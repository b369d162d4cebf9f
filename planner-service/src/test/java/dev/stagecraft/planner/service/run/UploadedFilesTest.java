package dev.stagecraft.planner.service.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UploadedFilesTest {
  @TempDir Path root;

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes());
  }

  @Test
  void writesConfigurationAndSupportFilesIntoAFreshPrivateDirectoryPerTenant() throws Exception {
    UploadedFiles uploads = new UploadedFiles(root);
    Map<String, byte[]> support =
        UploadedFiles.decode(
            Map.of("main.tf", "x"), Map.of("scripts/deploy.sh", b64("echo hi"), "m.txt", b64("m")));
    Path a = uploads.materialise("acme", Map.of("main.tf", "x"), support);
    Path b = uploads.materialise("acme", Map.of("main.tf", "x"), support);
    assertThat(a).isNotEqualTo(b).startsWith(root.resolve("acme"));
    assertThat(a.resolve("main.tf")).hasContent("x");
    assertThat(a.resolve("scripts/deploy.sh")).hasContent("echo hi");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(a)))
        .isEqualTo("rwx------");
    UploadedFiles.delete(a);
    assertThat(a).doesNotExist();
    assertThat(b).exists();
    assertThat(uploads.materialise("../evil", Map.of("main.tf", "x"), Map.of()))
        .startsWith(root.resolve("___evil"));
  }

  @Test
  void refusesPathsThatAreAbsoluteOrLeaveTheDirectory() {
    for (String path :
        new String[] {
          "/etc/passwd", "../x", "a/../../x", "a/..", "./a", "a//b", "", "\\\\server\\x", "C:/x"
        }) {
      assertThatThrownBy(() -> UploadedFiles.decode(Map.of("main.tf", "x"), Map.of(path, "")))
          .as(path)
          .isInstanceOf(UploadedFiles.InvalidUpload.class);
    }
    assertThatThrownBy(() -> UploadedFiles.decode(Map.of("../main.tf", "x"), Map.of()))
        .isInstanceOf(UploadedFiles.InvalidUpload.class)
        .hasMessageContaining("../main.tf");
  }

  @Test
  void refusesBadContentDuplicatesAndOversizedFiles() {
    assertThatThrownBy(() -> UploadedFiles.decode(Map.of("main.tf", "x"), Map.of("a", "%%%")))
        .hasMessageContaining("not base64");
    assertThatThrownBy(
            () -> UploadedFiles.decode(Map.of("main.tf", "x"), Map.of("main.tf", b64("y"))))
        .hasMessageContaining("both");
    String big = Base64.getEncoder().encodeToString(new byte[(1 << 20) + 1]);
    assertThatThrownBy(() -> UploadedFiles.decode(Map.of("main.tf", "x"), Map.of("big", big)))
        .hasMessageContaining("\"big\"")
        .hasMessageContaining("1 MiB");
    String mib = Base64.getEncoder().encodeToString(new byte[1 << 20]);
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 11; i++) {
      many.put("f" + i, mib);
    }
    assertThatThrownBy(() -> UploadedFiles.decode(Map.of("main.tf", "x"), many))
        .isInstanceOf(UploadedFiles.TooLarge.class)
        .hasMessageContaining("10 MiB");
  }

  @Test
  void limitsAreCheckedBeforeAnythingIsDecoded() {
    // 60 MB of text that is not even base64: refused by its length, never decoded
    String huge = "%".repeat(60_000_000);
    assertThatThrownBy(() -> UploadedFiles.decode(Map.of("main.tf", "x"), Map.of("a", huge)))
        .isInstanceOf(UploadedFiles.TooLarge.class)
        .hasMessageContaining("limit of 1 MiB per file");
    assertThatThrownBy(
            () -> UploadedFiles.decode(Map.of("main.tf", "x".repeat(11 << 20)), Map.of()))
        .isInstanceOf(UploadedFiles.TooLarge.class)
        .hasMessageContaining("10 MiB of text");
    Map<String, String> files = new LinkedHashMap<>();
    for (int i = 0; i <= UploadedFiles.MAX_FILES; i++) {
      files.put("f" + i + ".tf", "");
    }
    assertThatThrownBy(() -> UploadedFiles.decode(files, Map.of()))
        .isInstanceOf(UploadedFiles.TooLarge.class)
        .hasMessageContaining("above the limit of 10000");
  }

  @Test
  void aFileWhereADirectoryIsNeededIsRefusedAndNothingIsLeft() throws Exception {
    UploadedFiles uploads = new UploadedFiles(root);
    Map<String, byte[]> support = new LinkedHashMap<>();
    support.put("a", new byte[] {1});
    support.put("a/b", new byte[] {2});
    assertThatThrownBy(() -> uploads.materialise("acme", Map.of("main.tf", "x"), support))
        .isInstanceOf(UploadedFiles.InvalidUpload.class);
    try (var left = Files.list(root.resolve("acme"))) {
      assertThat(left).isEmpty();
    }
  }
}
