package dev.stagecraft.planner.service.adapter.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Delete;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Patch;
import io.micronaut.http.annotation.Post;
import io.micronaut.http.annotation.Put;
import io.swagger.v3.oas.annotations.Hidden;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The generated OpenAPI document names every route of every controller of the public API: a new
 * endpoint cannot be left out of it (and so out of the isolation test, which enumerates it).
 */
class OpenApiDocumentTest {

  /** "METHOD /path" of every route in the document. */
  static Set<String> documented() throws IOException {
    String yaml;
    try (InputStream in =
        OpenApiController.class.getClassLoader().getResourceAsStream(OpenApiController.RESOURCE)) {
      assertThat(in).as("generated " + OpenApiController.RESOURCE).isNotNull();
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Set<String> routes = new TreeSet<>();
    String path = null;
    Matcher m =
        Pattern.compile("(?m)^  (/\\S*):$|^    (get|post|put|patch|delete):$").matcher(yaml);
    while (m.find()) {
      if (m.group(1) != null) {
        path = m.group(1);
      } else {
        routes.add(m.group(2).toUpperCase() + " " + path);
      }
    }
    return routes;
  }

  /** "METHOD /path" of every route the controllers in this package declare (minus hidden ones). */
  static Set<String> declared() throws IOException, URISyntaxException, ClassNotFoundException {
    Path dir =
        Path.of(OpenApiController.class.getResource("OpenApiController.class").toURI()).getParent();
    List<Class<?>> controllers = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (name.endsWith(".class") && !name.contains("$")) {
          Class<?> c =
              Class.forName(
                  OpenApiController.class.getPackageName()
                      + "."
                      + name.substring(0, name.length() - 6));
          if (c.isAnnotationPresent(Controller.class)) {
            controllers.add(c);
          }
        }
      }
    }
    assertThat(controllers).hasSizeGreaterThan(5);
    Set<String> routes = new TreeSet<>();
    for (Class<?> c : controllers) {
      String base = c.getAnnotation(Controller.class).value();
      for (Method method : c.getDeclaredMethods()) {
        if (method.isAnnotationPresent(Hidden.class)) {
          continue;
        }
        String verb = null;
        String uri = null;
        if (method.getAnnotation(Get.class) instanceof Get a) {
          verb = "GET";
          uri = first(a.value(), a.uri());
        } else if (method.getAnnotation(Post.class) instanceof Post a) {
          verb = "POST";
          uri = first(a.value(), a.uri());
        } else if (method.getAnnotation(Put.class) instanceof Put a) {
          verb = "PUT";
          uri = first(a.value(), a.uri());
        } else if (method.getAnnotation(Patch.class) instanceof Patch a) {
          verb = "PATCH";
          uri = first(a.value(), a.uri());
        } else if (method.getAnnotation(Delete.class) instanceof Delete a) {
          verb = "DELETE";
          uri = first(a.value(), a.uri());
        }
        if (verb != null) {
          String path = ("/".equals(base) ? "" : base) + uri;
          path = path.replaceAll("\\{\\?[^}]*}", ""); // query templates are not part of the path
          routes.add(verb + " " + (path.isEmpty() ? "/" : path));
        }
      }
    }
    return routes;
  }

  private static String first(String value, String uri) {
    return "/".equals(value) && !"/".equals(uri) ? uri : "/".equals(value) ? "" : value;
  }

  @Test
  void everyRouteOfEveryControllerIsInTheGeneratedDocument() throws Exception {
    Set<String> declared = declared();
    assertThat(declared)
        .contains(
            "GET /api/v1/runs",
            "POST /api/v1/runs/{id}/approve",
            "POST /api/v1/tenants",
            "PATCH /api/v1/workspaces/{ws}");
    assertThat(documented()).containsAll(declared);
  }

  @Test
  void startingARunDocumentsTheIdempotencyKeyHeader() throws IOException {
    String yaml;
    try (InputStream in =
        OpenApiController.class.getClassLoader().getResourceAsStream(OpenApiController.RESOURCE)) {
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Matcher runs = Pattern.compile("(?ms)^  /api/v1/runs:$(.*?)^  /").matcher(yaml);
    assertThat(runs.find()).as("/api/v1/runs in the document").isTrue();
    Matcher post = Pattern.compile("(?ms)^    post:$(.*?)(^    \\S|\\z)").matcher(runs.group(1));
    assertThat(post.find()).as("POST /api/v1/runs in the document").isTrue();
    assertThat(post.group(1)).containsPattern("- name: Idempotency-Key\\s+in: header");
  }
}
