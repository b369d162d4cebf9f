package dev.stagecraft.sshtestkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;

/**
 * A real {@code git daemon} on a free loopback port serving the repositories under {@code base}
 * ({@code git://127.0.0.1:PORT/NAME}), started as a process of its own and stopped by its pid; and
 * repositories made with JGit to serve. Shared by the tests of the CLI (git modules), the planner
 * (git sources) and the system tests.
 */
public final class GitDaemon implements AutoCloseable {
  private final Process process;
  private final int port;

  private GitDaemon(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** Starts the daemon and returns once it accepts connections (it says so on stderr). */
  public static GitDaemon start(Path base) throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Process p =
        new ProcessBuilder(
                "git",
                "daemon",
                "--verbose",
                "--export-all",
                "--reuseaddr",
                "--base-path=" + base,
                "--listen=127.0.0.1",
                "--port=" + port,
                base.toString())
            .redirectErrorStream(true)
            .start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder said = new StringBuilder();
    String line;
    while ((line = out.readLine()) != null && !line.contains("Ready to rumble")) {
      said.append(line).append('\n');
    }
    if (line == null) {
      p.destroy();
      throw new IOException("git daemon did not start: " + said);
    }
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {
                  // keep the pipe from filling up
                }
              } catch (IOException ignored) {
                // the daemon stopped
              }
            });
    drain.setDaemon(true);
    drain.start();
    return new GitDaemon(p, port);
  }

  public String url(String repo) {
    return "git://127.0.0.1:" + port + "/" + repo;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }

  /** A new repository {@code base/name} (a work tree whose {@code .git} the daemon serves). */
  public static Git init(Path base, String name) throws Exception {
    return Git.init().setDirectory(base.resolve(name).toFile()).setInitialBranch("main").call();
  }

  /** Writes {@code path} in the work tree and commits every change. */
  public static RevCommit commit(Git git, String path, String text) throws Exception {
    return commit(git, Map.of(path, text), "change " + path);
  }

  /** Writes every file of {@code files} in the work tree and commits every change. */
  public static RevCommit commit(Git git, Map<String, String> files, String message)
      throws Exception {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path file = git.getRepository().getWorkTree().toPath().resolve(f.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, f.getValue());
    }
    git.add().addFilepattern(".").call();
    PersonIdent who = new PersonIdent("Test", "test@example.com");
    return git.commit().setMessage(message).setAuthor(who).setCommitter(who).call();
  }
}
