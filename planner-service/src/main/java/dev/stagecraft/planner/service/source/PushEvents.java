package dev.stagecraft.planner.service.source;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The push payloads of GitHub, GitLab and Gitea, read into a {@link PushEvent}: one small parser
 * per forge. Only called on a body whose signature was verified. Stateless and thread-safe.
 */
public final class PushEvents {
  private static final ObjectMapper JSON =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
              .build());

  private PushEvents() {}

  /** The payload could not be read as a push of that forge; the message says why. */
  public static final class NotAPush extends Exception {
    private static final long serialVersionUID = 1L;

    public NotAPush(String message) {
      super(message);
    }
  }

  /**
   * A GitHub push ({@code repository.clone_url/git_url/ssh_url/html_url}, {@code pusher.name},
   * {@code head_commit.message}, {@code commits[].added/modified/removed}).
   */
  public static PushEvent github(byte[] body) throws NotAPush {
    return githubLike(read(body), "GitHub");
  }

  /**
   * A Gitea push: as GitHub's, {@code pusher.login} or {@code pusher.username} naming the pusher.
   */
  public static PushEvent gitea(byte[] body) throws NotAPush {
    return githubLike(read(body), "Gitea");
  }

  /**
   * A GitLab push hook ({@code project.git_http_url/git_ssh_url/web_url}, {@code user_username},
   * {@code commits[]} with at most 20 commits: when {@code total_commits_count} is larger the
   * changed paths are unknown).
   */
  public static PushEvent gitlab(byte[] body) throws NotAPush {
    JsonNode root = read(body);
    JsonNode project = root.path("project");
    List<String> urls = texts(project, "git_http_url", "git_ssh_url", "web_url", "http_url");
    JsonNode repo = root.path("repository");
    urls.addAll(texts(repo, "git_http_url", "git_ssh_url", "homepage", "url"));
    String ref = root.path("ref").asText(null);
    String after = root.path("after").asText(null);
    if (urls.isEmpty() || ref == null || after == null) {
      throw new NotAPush("The GitLab push names no project URL, ref or 'after' commit.");
    }
    JsonNode commits = root.path("commits");
    List<String> paths = paths(commits);
    if (root.path("total_commits_count").asInt(commits.size()) > commits.size()) {
      paths = null;
    }
    String pusher = firstText(root, "user_username", "user_name");
    String subject = "";
    for (JsonNode c : commits) {
      if (after.equals(c.path("id").asText())) {
        subject = subjectOf(c.path("message").asText(""));
      }
    }
    if (subject.isEmpty() && !commits.isEmpty()) {
      subject = subjectOf(commits.get(commits.size() - 1).path("message").asText(""));
    }
    return new PushEvent(
        List.copyOf(new LinkedHashSet<>(urls)), ref, after, paths, pusher, subject);
  }

  private static PushEvent githubLike(JsonNode root, String forge) throws NotAPush {
    JsonNode repo = root.path("repository");
    List<String> urls = texts(repo, "clone_url", "git_url", "ssh_url", "html_url", "url");
    String ref = root.path("ref").asText(null);
    String after = root.path("after").asText(null);
    if (urls.isEmpty() || ref == null || after == null) {
      throw new NotAPush("The " + forge + " push names no repository URL, ref or 'after' commit.");
    }
    JsonNode commits = root.path("commits");
    List<String> paths = paths(commits);
    JsonNode head = root.path("head_commit");
    if (head.isObject() && commits.isEmpty()) {
      paths = paths(JSON.createArrayNode().add(head));
    }
    String pusher = firstText(root.path("pusher"), "name", "login", "username", "email");
    if (pusher.isEmpty()) {
      pusher = firstText(root.path("sender"), "login", "username");
    }
    String subject = subjectOf(head.path("message").asText(""));
    if (subject.isEmpty() && !commits.isEmpty()) {
      subject = subjectOf(commits.get(commits.size() - 1).path("message").asText(""));
    }
    return new PushEvent(
        List.copyOf(new LinkedHashSet<>(urls)), ref, after, paths, pusher, subject);
  }

  private static JsonNode read(byte[] body) throws NotAPush {
    try {
      JsonNode root = JSON.readTree(body);
      if (root == null || !root.isObject()) {
        throw new NotAPush("The push payload is not a JSON object.");
      }
      return root;
    } catch (IOException e) {
      throw new NotAPush(
          "The push payload is not JSON (set the webhook's content type to application/json).");
    }
  }

  /**
   * Every path the commits add, modify or remove; null when there are no commits or one of them
   * lists none of the three (the forge left them out).
   */
  private static List<String> paths(JsonNode commits) {
    if (!commits.isArray() || commits.isEmpty()) {
      return null;
    }
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode c : commits) {
      boolean listed = false;
      for (String field : List.of("added", "modified", "removed")) {
        JsonNode list = c.path(field);
        if (list.isArray()) {
          listed = true;
          list.forEach(p -> out.add(p.asText()));
        }
      }
      if (!listed) {
        return null;
      }
    }
    return List.copyOf(out);
  }

  private static List<String> texts(JsonNode node, String... fields) {
    List<String> out = new ArrayList<>();
    for (String f : fields) {
      String v = node.path(f).asText("");
      if (!v.isBlank()) {
        out.add(v);
      }
    }
    return out;
  }

  private static String firstText(JsonNode node, String... fields) {
    List<String> all = texts(node, fields);
    return all.isEmpty() ? "" : all.get(0);
  }

  private static String subjectOf(String message) {
    String line = message.strip().lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }
}
