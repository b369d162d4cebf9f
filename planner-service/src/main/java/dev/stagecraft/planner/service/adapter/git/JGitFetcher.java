package dev.stagecraft.planner.service.adapter.git;

import dev.stagecraft.planner.service.run.UploadedFiles;
import dev.stagecraft.planner.service.source.FetchedConfiguration;
import dev.stagecraft.planner.service.source.GitAddresses;
import dev.stagecraft.planner.service.source.GitCredentials;
import dev.stagecraft.planner.service.source.GitFetcher;
import dev.stagecraft.planner.service.source.GitSource;
import dev.stagecraft.planner.service.source.GitSourceRules;
import dev.stagecraft.planner.service.source.KnownGitHosts;
import dev.stagecraft.planner.service.source.RepositoryUrls;
import dev.stagecraft.planner.service.source.SourceUnavailable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.TransportConfigCallback;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.AbbreviatedObjectId;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.SshTransport;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;

/**
 * Fetches a workspace's configuration from its git repository with Eclipse JGit (ADR 0078).
 *
 * <p>Only {@code https}, {@code http} and {@code git} URLs are fetched ({@link RepositoryUrls}
 * refuses {@code file:} and local paths: a tenant must not read the planner's disk). An {@code ssh}
 * URL needs an SSH deploy key, used only for it ({@link GitSshSessions}: the key in memory, no ssh
 * configuration of the planner's user, the server's key checked against the tenant's known hosts).
 * The ref is resolved with {@code ls-remote} (a branch {@code B} or {@code refs/heads/B}, a tag
 * {@code refs/tags/T}, peeled to its commit); then only that commit is fetched, {@code --depth 1},
 * into a bare cache repository per tenant and repository under {@code <data dir>/git/}. A commit
 * already in the cache is read without any network request (a commit's content never changes).
 *
 * <p>A commit asked for by id: fetched by its id at depth 1 when the server allows it (git's
 * protocol v2 and the big forges do); when the server refuses a want by id (protocol v0 without
 * {@code uploadpack.allowReachableSHA1InWant}), the source's branch is fetched 50 commits deep,
 * then its whole history, and the commit looked for there: a commit that is not on the source's
 * branch is then reported as not found. A unique prefix of at least 7 hex digits is resolved in the
 * cache, then among the remote's refs, then in the branch's history.
 *
 * <p>The commit's tree is read straight from the object database: nothing is checked out, no hook
 * or filter (clean/smudge, LFS) ever runs. Files are taken below the source's directory: {@code
 * *.tf} and {@code *.tf.json} directly in it are the configuration, every other regular file below
 * it a supporting file (by its path relative to the directory); symbolic links, submodules and
 * hidden files or directories (a segment starting with {@code .}) are left out, and the limits of
 * uploads apply ({@link UploadedFiles}). Messages never hold a credential.
 *
 * <p>Thread-safe: fetches of one cache repository are serialized by a lock per repository; fetches
 * of different repositories run in parallel.
 */
public final class JGitFetcher implements GitFetcher {
  /** How deep the source's branch is fetched first when a commit cannot be fetched by its id. */
  static final int FALLBACK_DEPTH = 50;

  private static final Pattern FULL_ID = Pattern.compile("[0-9a-f]{40}");
  private static final Pattern ABBREVIATED_ID = Pattern.compile("[0-9a-f]{7,40}");
  private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,89}");

  private final Path cacheRoot;
  private final int timeoutSeconds;
  private final KnownGitHosts knownHosts;
  private final GitAddresses addresses;
  private final Resolver resolver;
  private final Map<Path, ReentrantLock> locks = new ConcurrentHashMap<>();

  /** Resolves a host name to its addresses (the system's resolver in service). */
  @FunctionalInterface
  public interface Resolver {
    List<InetAddress> resolve(String host) throws UnknownHostException;
  }

  /**
   * @param dataDir the planner's data directory; the caches go to {@code dataDir/git}
   * @param timeoutSeconds how long a network operation may wait for the server
   * @param knownHosts the host keys each tenant trusts for its ssh git servers
   * @param addresses the addresses a repository host may resolve to
   */
  public JGitFetcher(
      Path dataDir, int timeoutSeconds, KnownGitHosts knownHosts, GitAddresses addresses) {
    this(dataDir, timeoutSeconds, knownHosts, addresses, h -> List.of(InetAddress.getAllByName(h)));
  }

  /** As above, with {@code resolver} resolving host names. */
  public JGitFetcher(
      Path dataDir,
      int timeoutSeconds,
      KnownGitHosts knownHosts,
      GitAddresses addresses,
      Resolver resolver) {
    this.cacheRoot = dataDir.resolve("git");
    this.timeoutSeconds = timeoutSeconds;
    this.knownHosts = knownHosts;
    this.addresses = addresses;
    this.resolver = resolver;
  }

  /** The planner's data directory: {@code dataDir} when set, else the temp directory's. */
  public static Path dataDirectory(String dataDir) {
    return dataDir == null || dataDir.isBlank()
        ? Path.of(System.getProperty("java.io.tmpdir"), "stagecraft-planner")
        : Path.of(dataDir);
  }

  @Override
  public FetchedConfiguration fetch(String tenant, GitSource source, String commit)
      throws SourceUnavailable {
    String url = source.url();
    Optional<String> problem = RepositoryUrls.problem(url);
    if (problem.isPresent()) {
      throw new SourceUnavailable(problem.get());
    }
    boolean ssh = RepositoryUrls.isSsh(url);
    if (ssh != source.credentials() instanceof GitCredentials.SshKey) {
      throw new SourceUnavailable(
          ssh
              ? "repository "
                  + RepositoryUrls.redacted(url)
                  + " is an ssh repository: it needs an SSH deploy key (\"sshKey\"), or use its"
                  + " https URL"
              : "an SSH deploy key is used with an ssh URL (ssh://… or git@host:path), not with "
                  + RepositoryUrls.redacted(url));
    }
    String wanted = commit == null ? null : commit.strip().toLowerCase(Locale.ROOT);
    if (wanted != null && !ABBREVIATED_ID.matcher(wanted).matches()) {
      throw new SourceUnavailable(
          "'" + commit + "' is not a commit id: give 7 to 40 hexadecimal digits");
    }
    // the transport resolves the host to what the check approved, not anew (PinnedAddresses)
    try (PinnedAddresses.Pin pin = checkAddress(url)) {
      return fetch(tenant, source, url, wanted);
    }
  }

  private FetchedConfiguration fetch(String tenant, GitSource source, String url, String wanted)
      throws SourceUnavailable {
    Path dir = cacheOf(tenant, url);
    GitSshSessions sessions =
        source.credentials() instanceof GitCredentials.SshKey key
            ? GitSshSessions.open(key.privateKey(), tenant, knownHosts)
            : null;
    ReentrantLock lock = locks.computeIfAbsent(dir, d -> new ReentrantLock());
    lock.lock();
    try (Repository repo = open(dir)) {
      Remote remote =
          new Remote(url, source, credentialsOf(source), timeoutSeconds, transport(sessions));
      ObjectId id = wanted == null ? remote.resolveRef() : remote.resolveCommit(repo, wanted);
      RevCommit c = remote.ensure(repo, id);
      Map.Entry<Map<String, String>, Map<String, byte[]>> files =
          TreeFiles.read(repo, c, source.directory(), RepositoryUrls.redacted(url));
      return new FetchedConfiguration(
          files.getKey(), files.getValue(), c.name(), GitSourceRules.fullRef(source.ref()));
    } catch (SourceUnavailable e) {
      // a refused host key says which key and what to do, not only that ssh failed
      throw sessions != null && sessions.refusal() != null
          ? new SourceUnavailable(
              "repository " + RepositoryUrls.redacted(url) + ": " + sessions.refusal(), e)
          : e;
    } catch (IOException e) {
      throw new SourceUnavailable(
          "the planner could not use its git cache for "
              + RepositoryUrls.redacted(url)
              + ": "
              + e.getMessage()
              + "; check the space and permissions of its data directory",
          e);
    } finally {
      lock.unlock();
      if (sessions != null) {
        sessions.close();
      }
    }
  }

  /**
   * Refuses a repository whose host resolves to an address the operator did not allow ({@link
   * GitAddresses}), and pins the host to the addresses checked on this thread until the returned
   * pin is closed ({@link PinnedAddresses}), so the transport connects to them. Redirects are not
   * followed ({@link #open}), so an allowed server cannot send the planner elsewhere.
   */
  private PinnedAddresses.Pin checkAddress(String url) throws SourceUnavailable {
    String host = RepositoryUrls.host(url).orElseThrow();
    List<InetAddress> resolved;
    try {
      resolved = resolver.resolve(host);
    } catch (UnknownHostException e) {
      throw new SourceUnavailable(
          "repository host '" + host + "' is not known (DNS): check the source's URL", e);
    }
    Optional<String> refusal = addresses.refusal(host, resolved);
    if (refusal.isPresent()) {
      throw new SourceUnavailable(refusal.get());
    }
    return PinnedAddresses.pin(host, resolved);
  }

  /** Gives ssh transports the source's own session factory; others are left as they are. */
  private static TransportConfigCallback transport(GitSshSessions sessions) {
    return t -> {
      if (sessions != null && t instanceof SshTransport ssh) {
        ssh.setSshSessionFactory(sessions.factory());
      }
    };
  }

  /** The cache directory of {@code tenant}'s copy of {@code url}. */
  Path cacheOf(String tenant, String url) {
    String t = TENANT.matcher(tenant).matches() ? tenant : "t-" + sha256(tenant).substring(0, 24);
    return cacheRoot.resolve(t).resolve(sha256(RepositoryUrls.key(url)).substring(0, 32) + ".git");
  }

  private static Repository open(Path dir) throws IOException {
    Repository repo = new FileRepositoryBuilder().setGitDir(dir.toFile()).setBare().build();
    if (!Files.exists(dir.resolve("config"))) {
      Files.createDirectories(dir);
      repo.create(true);
      // the cache keeps every commit it fetched: nothing may be collected behind its back
      repo.getConfig().setInt("gc", null, "auto", 0);
    }
    // a server may not redirect the planner to another address (GitAddresses checks only the
    // URL's host)
    if (!"false".equals(repo.getConfig().getString("http", null, "followRedirects"))) {
      repo.getConfig().setString("http", null, "followRedirects", "false");
      repo.getConfig().save();
    }
    return repo;
  }

  private static CredentialsProvider credentialsOf(GitSource source) {
    if (source.credentials() instanceof GitCredentials.HttpsToken t) {
      String user =
          t.username() == null || t.username().isBlank() ? "x-access-token" : t.username();
      return new UsernamePasswordCredentialsProvider(user, t.token());
    }
    return null;
  }

  static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available in this JDK", e);
    }
  }

  /** One fetch's conversation with the remote repository. */
  private static final class Remote {
    private final String url;
    private final String shown;
    private final GitSource source;
    private final CredentialsProvider credentials;
    private final int timeout;
    private final TransportConfigCallback transport;
    private Map<String, Ref> refs;

    Remote(
        String url,
        GitSource source,
        CredentialsProvider credentials,
        int timeout,
        TransportConfigCallback transport) {
      this.url = url;
      this.shown = RepositoryUrls.redacted(url);
      this.source = source;
      this.credentials = credentials;
      this.timeout = timeout;
      this.transport = transport;
    }

    /** The remote's refs (asked once). */
    private Map<String, Ref> refs() throws SourceUnavailable {
      if (refs == null) {
        try {
          refs =
              Git.lsRemoteRepository()
                  .setRemote(url)
                  .setCredentialsProvider(credentials)
                  .setTransportConfigCallback(transport)
                  .setTimeout(timeout)
                  .callAsMap();
        } catch (GitAPIException | RuntimeException e) {
          throw GitErrors.of(shown, source, e);
        }
      }
      return refs;
    }

    /** The commit the source's ref names now. */
    ObjectId resolveRef() throws SourceUnavailable {
      String full = GitSourceRules.fullRef(source.ref());
      Ref ref = refs().get(full);
      if (ref == null) {
        boolean tag = full.startsWith(GitSourceRules.TAGS);
        String name = full.substring((tag ? GitSourceRules.TAGS : GitSourceRules.HEADS).length());
        throw new SourceUnavailable(
            (tag ? "tag '" : "branch '")
                + name
                + "' does not exist in "
                + shown
                + "; check the source's "
                + (tag ? "tag" : "branch")
                + " (the repository has "
                + GitErrors.names(refs.keySet(), tag ? GitSourceRules.TAGS : GitSourceRules.HEADS)
                + ")");
      }
      ObjectId peeled = ref.getPeeledObjectId();
      return peeled != null ? peeled : ref.getObjectId();
    }

    /** The full id of {@code wanted} (an id or a prefix), without fetching it yet when full. */
    ObjectId resolveCommit(Repository repo, String wanted) throws SourceUnavailable, IOException {
      if (FULL_ID.matcher(wanted).matches()) {
        return ObjectId.fromString(wanted);
      }
      ObjectId local = unique(repo, wanted);
      if (local != null) {
        return local;
      }
      for (Ref r : refs().values()) {
        ObjectId id = r.getPeeledObjectId() != null ? r.getPeeledObjectId() : r.getObjectId();
        if (id != null && id.name().startsWith(wanted)) {
          return id;
        }
      }
      deepen(repo);
      ObjectId found = unique(repo, wanted);
      if (found == null) {
        throw notOnBranch(wanted);
      }
      return found;
    }

    /** The commit {@code id}, fetched into the cache unless it is there already. */
    RevCommit ensure(Repository repo, ObjectId id) throws SourceUnavailable, IOException {
      RevCommit found = parse(repo, id);
      if (found != null) {
        return found;
      }
      try (Git git = new Git(repo)) {
        git.fetch()
            .setRemote(url)
            .setCredentialsProvider(credentials)
            .setTransportConfigCallback(transport)
            .setTimeout(timeout)
            .setDepth(1)
            .setTagOpt(TagOpt.NO_TAGS)
            .setRefSpecs(new RefSpec(id.name() + ":refs/stagecraft/commits/" + id.name()))
            .call();
      } catch (GitAPIException | RuntimeException e) {
        if (GitErrors.unreachable(e)) {
          throw GitErrors.of(shown, source, e);
        }
        // the server would not serve the commit by its id: look for it in the branch
      }
      found = parse(repo, id);
      if (found != null) {
        keep(repo, found);
      } else {
        deepen(repo);
        found = parse(repo, id);
      }
      if (found == null) {
        throw notOnBranch(id.name());
      }
      return found;
    }

    /** Fetches the source's ref {@value #FALLBACK_DEPTH} commits deep, then all of it. */
    private void deepen(Repository repo) throws SourceUnavailable {
      String full = GitSourceRules.fullRef(source.ref());
      RefSpec spec = new RefSpec("+" + full + ":refs/stagecraft/follow/" + full);
      try (Git git = new Git(repo)) {
        git.fetch()
            .setRemote(url)
            .setCredentialsProvider(credentials)
            .setTransportConfigCallback(transport)
            .setTimeout(timeout)
            .setDepth(FALLBACK_DEPTH)
            .setTagOpt(TagOpt.NO_TAGS)
            .setRefSpecs(spec)
            .call();
        if (repo.getObjectDatabase().getShallowCommits().isEmpty()) {
          return;
        }
        git.fetch()
            .setRemote(url)
            .setCredentialsProvider(credentials)
            .setTransportConfigCallback(transport)
            .setTimeout(timeout)
            .setUnshallow(true)
            .setTagOpt(TagOpt.NO_TAGS)
            .setRefSpecs(spec)
            .call();
      } catch (GitAPIException | IOException | RuntimeException e) {
        throw GitErrors.of(shown, source, e);
      }
    }

    /** A ref on {@code commit}, so the cache holds it as reachable (a fetch by id makes none). */
    private static void keep(Repository repo, ObjectId commit) throws IOException {
      RefUpdate update = repo.updateRef("refs/stagecraft/commits/" + commit.name());
      update.setNewObjectId(commit);
      update.setForceUpdate(true);
      update.update();
    }

    private SourceUnavailable notOnBranch(String commit) {
      String full = GitSourceRules.fullRef(source.ref());
      return new SourceUnavailable(
          "commit "
              + commit
              + " does not exist in "
              + shown
              + " (looked for on "
              + full
              + "); check the commit id and that it was pushed");
    }

    private static RevCommit parse(Repository repo, ObjectId id) throws IOException {
      if (!repo.getObjectDatabase().has(id)) {
        return null;
      }
      try (RevWalk walk = new RevWalk(repo)) {
        return walk.parseCommit(id);
      } catch (MissingObjectException e) {
        return null;
      }
    }

    private static ObjectId unique(Repository repo, String prefix) throws IOException {
      try (ObjectReader reader = repo.newObjectReader()) {
        Collection<ObjectId> ids = reader.resolve(AbbreviatedObjectId.fromString(prefix));
        ObjectId only = null;
        for (ObjectId id : ids) {
          if (reader.open(id).getType() == Constants.OBJ_COMMIT) {
            if (only != null) {
              return null;
            }
            only = id;
          }
        }
        return only;
      }
    }
  }
}
