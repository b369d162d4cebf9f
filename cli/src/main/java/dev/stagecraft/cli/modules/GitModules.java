package dev.stagecraft.cli.modules;

import dev.stagecraft.language.config.ConfigLoader;
import dev.stagecraft.language.config.Configuration;
import dev.stagecraft.language.config.GitSource;
import dev.stagecraft.language.config.ModuleCallDecl;
import dev.stagecraft.language.diag.Diagnostics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Fetches the git modules a configuration calls, as {@code terraform init} does (docs/adr/0065):
 * walks the module calls of the root, of its local modules and of the fetched git modules; pins
 * each git source's commit in {@code .stagecraft/modules.lock.json} (reused until {@code
 * -upgrade}); fetches into the cache only what is not there; and puts each repository's files in
 * the configuration directory under {@link GitSource#checkoutDirectory()}, where the local checks
 * read them and from where they are sent with the configuration.
 */
public final class GitModules {
  private static final int MAX_DEPTH = 16;
  private static final int MAX_MODULES = 1_000;
  private static final String MARKER = ".stagecraft-commit";

  /** A git module that cannot be fetched: the message is rendered at the call's source. */
  public static final class Failure extends Exception {
    Failure(String rendered) {
      super(rendered);
    }
  }

  private final Path configDir;
  private final GitFetcher fetcher;
  private final boolean upgrade;
  private final Map<String, String> pins;
  private final Map<String, String> used = new TreeMap<>();
  private final Map<String, String> sources = new TreeMap<>();
  private final Set<String> visited = new HashSet<>();
  private final List<String> checkouts = new ArrayList<>();
  private int calls;

  private GitModules(Path configDir, GitFetcher fetcher, boolean upgrade) throws IOException {
    this.configDir = configDir;
    this.fetcher = fetcher;
    this.upgrade = upgrade;
    this.pins = ModulesLock.read(configDir);
  }

  /**
   * Fetches what the configuration of {@code configDir} (its files {@code rootFiles}) calls.
   *
   * @param env the environment ({@code XDG_CACHE_HOME}, {@code HOME}: where the cache is; {@code
   *     STAGECRAFT_SSH_DIR}: the ssh directory, by default {@code HOME/.ssh})
   * @param upgrade pin what each ref names now, rather than the commits in the lock file
   * @return the checkout directories to send with the configuration, relative to {@code configDir}
   * @throws Failure when a git module cannot be fetched
   */
  public static List<String> prepare(
      Path configDir, Map<String, String> env, Map<String, String> rootFiles, boolean upgrade)
      throws Failure, IOException {
    try (GitFetcher fetcher = new GitFetcher(GitFetcher.cacheOf(env), GitSsh.of(env))) {
      GitModules walk = new GitModules(configDir, fetcher, upgrade);
      walk.sources.putAll(rootFiles);
      walk.walk(rootFiles, "", 0);
      return walk.finish();
    }
  }

  /** Writes the lock file when the pins changed; the checkout directories. */
  private List<String> finish() throws IOException {
    if (!used.equals(pins)
        && (!used.isEmpty() || Files.exists(configDir.resolve(ModulesLock.PATH)))) {
      ModulesLock.write(configDir, used);
    }
    return List.copyOf(checkouts);
  }

  private void walk(Map<String, String> files, String dir, int depth) throws Failure, IOException {
    Configuration config = ConfigLoader.load(files).config();
    for (ModuleCallDecl call : config.modules()) {
      if (++calls > MAX_MODULES) {
        return; // the planner's checks report it
      }
      String source = call.source();
      String child;
      if (GitSource.isGit(source)) {
        GitSource git;
        try {
          git = GitSource.parse(source);
        } catch (GitSource.InvalidException e) {
          continue; // the planner's checks report it, at the source
        }
        checkout(git, call);
        child = git.directory();
      } else if (source.startsWith("./") || source.startsWith("../")) {
        Path resolved = Path.of(dir.isEmpty() ? "." : dir).resolve(source).normalize();
        child = resolved.toString().replace('\\', '/');
        if (child.startsWith("..") || resolved.isAbsolute()) {
          continue;
        }
      } else {
        continue;
      }
      if (depth >= MAX_DEPTH || !visited.add(child)) {
        continue;
      }
      Map<String, String> read = read(child);
      sources.putAll(read);
      walk(read, child, depth + 1);
    }
  }

  /** The configuration files of {@code dir}, named as the planner names them ({@code dir/f.tf}). */
  private Map<String, String> read(String dir) throws IOException {
    Map<String, String> out = new TreeMap<>();
    Path d = configDir.resolve(dir);
    if (!Files.isDirectory(d)) {
      return out;
    }
    try (Stream<Path> entries = Files.list(d)) {
      for (Path p : entries.sorted().toList()) {
        String name = p.getFileName().toString();
        if ((name.endsWith(".tf") || name.endsWith(".tf.json")) && Files.isRegularFile(p)) {
          out.put(
              (dir.equals(".") ? "" : dir + "/") + name,
              Files.readString(p, StandardCharsets.UTF_8));
        }
      }
    }
    return out;
  }

  private void checkout(GitSource git, ModuleCallDecl call) throws Failure, IOException {
    String key = git.packageAddress();
    if (used.containsKey(key)) {
      return;
    }
    String commit = upgrade ? null : pins.get(key);
    try {
      if (commit != null) {
        if (fetcher.cached(commit) == null && fetcher.fetch(git, commit) == null) {
          throw fail(
              call,
              "Pinned git module commit not found",
              "The commit "
                  + commit
                  + " pinned in "
                  + ModulesLock.PATH
                  + " for "
                  + GitSource.redacted(key)
                  + " no longer exists in the repository (its history was rewritten or the"
                  + " branch deleted). Run with -upgrade to pin the commit "
                  + (git.ref().isEmpty() ? "the remote's HEAD" : "\"" + git.ref() + "\"")
                  + " names now.");
        }
      } else {
        commit = fetcher.lsRemote(git);
        if (commit == null && git.ref().isEmpty()) {
          throw fail(
              call,
              "Cannot fetch git module",
              "The repository of "
                  + GitSource.redacted(key)
                  + " has no HEAD: name a branch or tag with ?ref=.");
        }
        if (commit == null
            && git.ref().matches("[0-9a-f]{40}")
            && fetcher.cached(git.ref()) != null) {
          commit = git.ref();
        }
        if (commit == null || fetcher.cached(commit) == null) {
          String fetched = fetcher.fetch(git, commit);
          if (fetched == null) {
            throw fail(
                call,
                "Cannot fetch git module",
                "The ref \""
                    + git.ref()
                    + "\" of "
                    + GitSource.redacted(key)
                    + " names no commit of the repository. Fix ref in the source.");
          }
          commit = fetched;
        }
      }
    } catch (GitFetcher.FetchException e) {
      String message = e.getMessage();
      throw fail(
          call,
          "Cannot fetch git module",
          Character.toUpperCase(message.charAt(0)) + message.substring(1));
    }
    used.put(key, commit);
    materialise(git, commit);
    checkouts.add(git.checkoutDirectory());
  }

  /** Puts the cached files of {@code commit} under the configuration's checkout directory. */
  private void materialise(GitSource git, String commit) throws IOException {
    Path target = configDir.resolve(git.checkoutDirectory());
    Path marker = target.resolve(MARKER);
    if (Files.isRegularFile(marker) && Files.readString(marker).strip().equals(commit)) {
      return;
    }
    Path from = fetcher.cached(commit);
    Files.createDirectories(target.getParent());
    Path tmp = Files.createTempDirectory(target.getParent(), ".copy-");
    try (Stream<Path> paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path to = tmp.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(to);
        } else {
          Files.copy(p, to, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
      Files.writeString(tmp.resolve(MARKER), commit + "\n");
      GitFetcher.delete(target);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      GitFetcher.delete(tmp);
    }
  }

  private Failure fail(ModuleCallDecl call, String summary, String detail) {
    Diagnostics d = new Diagnostics();
    d.error(summary, detail, call.sourceRange());
    return new Failure(d.render(sources));
  }
}
