package dev.stagecraft.cli.modules;

import dev.stagecraft.language.config.GitSource;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.errors.IncorrectObjectTypeException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.NetRCCredentialsProvider;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Fetches git module repositories with JGit into the cache, one directory per commit holding the
 * commit's files (no {@code .git}): {@code $XDG_CACHE_HOME/stagecraft/modules/COMMIT}, by default
 * {@code ~/.cache/stagecraft/modules/COMMIT}. Credentials are the user's own: {@code ~/.netrc} for
 * https, the keys, config and known hosts of {@code ~/.ssh} for ssh ({@link GitSsh}). A checkout is
 * bounded as the files sent with a configuration are: 1 MiB per file, 10 MiB in all (files and
 * directories whose name starts with "." are left out, as they are not sent).
 */
final class GitFetcher implements AutoCloseable {
  static final long MAX_FILE_BYTES = 1L << 20;
  static final long MAX_TOTAL_BYTES = 10L << 20;

  private final Path cache;
  private final GitSsh ssh;

  GitFetcher(Path cache, GitSsh ssh) {
    this.cache = cache;
    this.ssh = ssh;
    NetRCCredentialsProvider.install();
  }

  @Override
  public void close() {
    ssh.close();
  }

  /** The cache directory of the environment: XDG_CACHE_HOME, else HOME/.cache. */
  static Path cacheOf(Map<String, String> env) {
    String xdg = env.get("XDG_CACHE_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".cache");
    return base.resolve("stagecraft").resolve("modules");
  }

  /** A failure to fetch; the message says what and how to fix it. */
  static final class FetchException extends Exception {
    FetchException(String message) {
      super(message);
    }
  }

  /** The cached checkout of {@code commit}, or null when it is not in the cache. */
  Path cached(String commit) {
    Path dir = cache.resolve(commit);
    return Files.isDirectory(dir) ? dir : null;
  }

  /**
   * The commit {@code ref} (a branch or a tag; empty: the remote's HEAD) names on the remote now,
   * asked with {@code git ls-remote}; null when it names no branch or tag (it may be a commit).
   */
  String lsRemote(GitSource source) throws FetchException {
    Map<String, Ref> refs;
    try {
      refs =
          Git.lsRemoteRepository()
              .setRemote(source.url())
              .setTransportConfigCallback(ssh.transports())
              .callAsMap();
    } catch (GitAPIException | RuntimeException e) {
      throw unreachable(source, e);
    }
    List<String> names =
        source.ref().isEmpty()
            ? List.of(Constants.HEAD)
            : List.of(Constants.R_TAGS + source.ref(), Constants.R_HEADS + source.ref());
    for (String name : names) {
      Ref ref = refs.get(name);
      if (ref != null) {
        ObjectId id = ref.getPeeledObjectId() != null ? ref.getPeeledObjectId() : ref.getObjectId();
        if (id != null) {
          return id.name();
        }
      }
    }
    return null;
  }

  /**
   * Clones the repository and puts the files of {@code commit} (or, when {@code commit} is null, of
   * the commit {@code source.ref()} abbreviates) in the cache.
   *
   * @return the commit's full id
   * @throws FetchException when the repository cannot be cloned or holds no such commit
   */
  String fetch(GitSource source, String commit) throws FetchException {
    Path work;
    try {
      Files.createDirectories(cache);
      work = Files.createTempDirectory(cache, ".fetch-");
    } catch (IOException e) {
      throw new FetchException("cannot create the module cache " + cache + ": " + e.getMessage());
    }
    try (Git git =
        Git.cloneRepository()
            .setURI(source.url())
            .setTransportConfigCallback(ssh.transports())
            .setDirectory(work.resolve("repo.git").toFile())
            .setBare(true)
            .setCloneAllBranches(true)
            .setTagOption(TagOpt.FETCH_TAGS)
            .call()) {
      Repository repo = git.getRepository();
      ObjectId id;
      if (commit != null) {
        id = ObjectId.fromString(commit);
      } else {
        id = source.ref().matches("[0-9a-fA-F]{4,40}") ? repo.resolve(source.ref()) : null;
        if (id == null) {
          throw new FetchException(
              "the ref \""
                  + source.ref()
                  + "\" of "
                  + GitSource.redacted(source.packageAddress())
                  + " is not a branch, a tag or a commit of the repository (branches: "
                  + String.join(", ", names(repo, Constants.R_HEADS))
                  + "; tags: "
                  + String.join(", ", names(repo, Constants.R_TAGS))
                  + "). Fix ref in the source.");
        }
      }
      try (RevWalk walk = new RevWalk(repo)) {
        RevCommit c;
        try {
          c = walk.parseCommit(id);
        } catch (MissingObjectException | IncorrectObjectTypeException e) {
          return null;
        }
        extract(repo, c, source, work.resolve("files"));
        move(work.resolve("files"), cache.resolve(c.name()));
        return c.name();
      }
    } catch (GitAPIException | RuntimeException e) {
      throw unreachable(source, e);
    } catch (IOException e) {
      throw new FetchException(
          "cannot fetch " + GitSource.redacted(source.packageAddress()) + ": " + e.getMessage());
    } finally {
      delete(work);
    }
  }

  private static List<String> names(Repository repo, String prefix) throws IOException {
    List<String> out = new ArrayList<>();
    for (Ref r : repo.getRefDatabase().getRefsByPrefix(prefix)) {
      out.add(r.getName().substring(prefix.length()));
    }
    return out.isEmpty() ? List.of("none") : out;
  }

  private static void extract(Repository repo, RevCommit commit, GitSource source, Path into)
      throws IOException, FetchException {
    Files.createDirectories(into);
    long total = 0;
    try (TreeWalk tree = new TreeWalk(repo)) {
      tree.addTree(commit.getTree());
      tree.setRecursive(true);
      while (tree.next()) {
        String path = tree.getPathString();
        int mode = tree.getRawMode(0);
        boolean executable = FileMode.EXECUTABLE_FILE.equals(mode);
        boolean hidden = ("/" + path).contains("/.");
        if (hidden || !(executable || FileMode.REGULAR_FILE.equals(mode))) {
          continue; // not sent: hidden files, symbolic links, submodules
        }
        ObjectLoader blob = repo.open(tree.getObjectId(0));
        long size = blob.getSize();
        if (size > MAX_FILE_BYTES) {
          throw tooLarge(source, commit, "the file " + path + " is over 1 MiB");
        }
        total += size;
        if (total > MAX_TOTAL_BYTES) {
          throw tooLarge(source, commit, "its files add up to more than 10 MiB");
        }
        Path target = into.resolve(path).normalize();
        if (!target.startsWith(into)) {
          continue;
        }
        Files.createDirectories(target.getParent());
        try (InputStream in = blob.openStream();
            OutputStream out = Files.newOutputStream(target)) {
          in.transferTo(out);
        }
        if (executable) {
          target.toFile().setExecutable(true);
        }
      }
    }
  }

  private static FetchException tooLarge(GitSource source, RevCommit commit, String why) {
    return new FetchException(
        "the repository of "
            + GitSource.redacted(source.packageAddress())
            + " at commit "
            + commit.name()
            + " is too large to send with the configuration: "
            + why
            + " (files sent with a configuration may be at most 1 MiB each, 10 MiB in all)."
            + " Put the module in a smaller repository.");
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
      if (!Files.isDirectory(to)) {
        throw e;
      }
      // fetched concurrently by another command: the same commit holds the same files
    } catch (IOException e) {
      if (!Files.isDirectory(to)) {
        throw e;
      }
    }
  }

  private FetchException unreachable(GitSource source, Exception e) {
    String address = GitSource.redacted(source.packageAddress());
    if (source.ssh()) {
      String why = GitSshErrors.explain(ssh, source.url(), e);
      if (why != null) {
        return new FetchException("cannot fetch " + address + ": " + why);
      }
    }
    String why = e.getMessage() == null ? e.toString() : e.getMessage();
    return new FetchException(
        "cannot fetch "
            + address
            + ": "
            + GitSource.redacted(why)
            + ". Check the URL and that you can clone it ("
            + (source.ssh()
                ? "ssh keys, config and known_hosts in " + ssh.sshDir()
                : "credentials for https in ~/.netrc")
            + ").");
  }

  static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      Collection<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // best effort: a leftover temporary directory in the cache is harmless
    }
  }
}
