package dev.stagecraft.chaos.soak;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Several tenants × workspaces × runs through the public API, with the tenants' own tokens: workers
 * each pick a workspace, start a run (replacing every resource: a new {@code rev}), sometimes a
 * destroy, sometimes a cancel, approve or discard it on a workspace that does not auto-apply, and
 * follow it to its end. Every step's token goes to the manifest as soon as the run's id is known.
 * Choices come from {@code Random(seed + worker)}; the interleaving with faults does not replay.
 */
final class Workload {
  /** One tenant of the soak and its admin token. */
  record Tenant(String name, String token) {}

  private final SoakApi api;
  private final Path journal;
  private final Writer manifest;
  private final Writer reads;
  private final Map<String, String> lastRunOf = new ConcurrentHashMap<>();
  private final PrintStream out;
  private final long seed;
  private final List<Tenant> tenants = new ArrayList<>();
  private final int workspacesPerTenant;
  private final AtomicInteger started = new AtomicInteger();
  private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
  private final AtomicInteger unfinished = new AtomicInteger();
  private final AtomicInteger failedSubmissions = new AtomicInteger();
  private volatile Instant deadline;
  private volatile Instant hardStop;
  private volatile BooleanSupplier faultsPending = () -> false;
  private volatile int maxRuns;
  private volatile Duration runPatience;
  private volatile Supplier<Instant> lastFaultOver = () -> Instant.MIN;
  private volatile Duration checkBound = Duration.ZERO;
  private volatile List<SoakNetwork.SshHost> sshHosts = List.of();
  private final List<SoakDoor> doors = new ArrayList<>();

  Workload(
      SoakApi api,
      Path journal,
      Path manifest,
      Path reads,
      long seed,
      int workspacesPerTenant,
      PrintStream out)
      throws IOException {
    this.api = api;
    this.journal = journal;
    this.manifest = Files.newBufferedWriter(manifest, StandardCharsets.UTF_8);
    this.reads = Files.newBufferedWriter(reads, StandardCharsets.UTF_8);
    this.seed = seed;
    this.workspacesPerTenant = workspacesPerTenant;
    this.out = out;
  }

  /** The SSH hosts the remote shape's steps run on (none: local shapes only). */
  void sshHosts(List<SoakNetwork.SshHost> hosts) {
    this.sshHosts = List.copyOf(hosts);
  }

  /**
   * Creates the tenants (with the dev tenant's admin token) and their workspaces; every fourth
   * workspace does not auto-apply (its runs wait for an approval).
   */
  void setUp(String devToken, int tenantCount) throws IOException, InterruptedException {
    for (int t = 1; t <= tenantCount; t++) {
      String name = "soak-" + t;
      SoakApi.Response r =
          api.call("POST", "/api/v1/tenants", devToken, Map.of("name", name), null);
      expect(r, 201, "POST /api/v1/tenants " + name);
      Tenant tenant = new Tenant(name, r.text("/token"));
      tenants.add(tenant);
      for (int w = 0; w < workspacesPerTenant; w++) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", workspace(w));
        body.put("autoApply", !needsApproval(w));
        expect(
            api.call("POST", "/api/v1/workspaces", tenant.token(), body, null),
            201,
            "POST /api/v1/workspaces " + workspace(w));
      }
    }
    for (SoakDoor door : doors) {
      door.setUp(tenants);
    }
  }

  /** A door to go through beside the run workers (added before {@link #setUp}). */
  void add(SoakDoor door) {
    doors.add(door);
  }

  /** Each door's counts, by name. */
  Map<String, String> doorSummaries() {
    Map<String, String> m = new LinkedHashMap<>();
    doors.forEach(d -> m.put(d.name(), d.summary()));
    return m;
  }

  private static String workspace(int w) {
    return "ws-" + w;
  }

  private static boolean needsApproval(int w) {
    return w % 4 == 3;
  }

  /**
   * Runs {@code workers} workers until {@code until} or {@code maxRuns} runs were started, then
   * waits for each to follow its last run to its end (see {@link #follow}: at least {@code
   * runPatience}, and until {@code checkBound} after {@code lastFaultOver}). While {@code
   * faultsPending} says faults are still to come (a slow restart delays the schedule), runs go on
   * being started, but never after {@code hardStop}.
   */
  void run(
      int workers,
      Instant until,
      BooleanSupplier faultsPending,
      Instant hardStop,
      int maxRuns,
      Duration runPatience,
      Supplier<Instant> lastFaultOver,
      Duration checkBound)
      throws InterruptedException {
    this.lastFaultOver = lastFaultOver;
    this.checkBound = checkBound;
    this.deadline = until;
    this.faultsPending = faultsPending;
    this.hardStop = hardStop;
    this.maxRuns = maxRuns;
    this.runPatience = runPatience;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      int worker = i;
      threads.add(Thread.ofPlatform().name("soak-worker-" + i).start(() -> work(worker)));
    }
    for (int i = 0; i < doors.size(); i++) {
      SoakDoor door = doors.get(i);
      Random random = new Random(seed * 37 + i);
      threads.add(Thread.ofPlatform().name("soak-" + door.name()).start(() -> enter(door, random)));
    }
    for (Thread t : threads) {
      t.join();
    }
    try {
      manifest.close();
      synchronized (reads) {
        reads.close();
      }
    } catch (IOException e) {
      out.println("soak: writing the manifest or the read log failed: " + e);
    }
  }

  private void work(int worker) {
    Random random = new Random(seed * 31 + worker);
    int n = 0;
    while (goOn() && started.get() < maxRuns) {
      Tenant tenant = tenants.get(random.nextInt(tenants.size()));
      int w = random.nextInt(workspacesPerTenant);
      String rev = "s" + seed + "w" + worker + "n" + n++;
      try {
        boolean destroy = random.nextInt(10) == 0;
        boolean cancel = random.nextInt(12) == 0;
        boolean discard = random.nextInt(5) == 0;
        String runId = submit(tenant, w, rev, destroy);
        if (runId == null) {
          continue;
        }
        if (cancel) {
          api.call("POST", "/api/v1/runs/" + runId + "/cancel", tenant.token(), Map.of(), null);
        }
        follow(tenant, runId, needsApproval(w), discard);
        lastRunOf.put(tenant.name(), runId);
        if (random.nextInt(8) == 0) {
          probeOtherTenant(tenant, random);
        }
      } catch (IOException e) {
        out.println("soak: worker " + worker + ": " + e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Until when a run is followed regardless of patience: the bound after the last fault. */
  private Instant followUntil() {
    if (faultsPending.getAsBoolean()) {
      return Instant.MAX;
    }
    return lastFaultOver.get().plus(checkBound).plusSeconds(30);
  }

  private void enter(SoakDoor door, Random random) {
    try {
      door.work(random, () -> goOn());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      out.println("soak: door " + door.name() + " stopped: " + e);
    }
  }

  /** Adds a door's tokens to the manifest (the run id is known before it runs). */
  void manifest(List<String> lines) {
    synchronized (manifest) {
      try {
        for (String line : lines) {
          manifest.write(line + "\n");
        }
        manifest.flush();
      } catch (IOException e) {
        out.println("soak: writing the manifest failed: " + e);
      }
    }
  }

  private boolean goOn() {
    Instant now = Instant.now();
    return now.isBefore(hardStop) && (now.isBefore(deadline) || faultsPending.getAsBoolean());
  }

  /** Starts a run (retried on any planner under one idempotency key); null when none took it. */
  private String submit(Tenant tenant, int w, String rev, boolean destroy)
      throws IOException, InterruptedException {
    SoakConfigs.Shape shape = SoakConfigs.shape(w, journal, sshHosts);
    Map<String, Object> body = new HashMap<>();
    body.put("workspace", workspace(w));
    body.put("variables", shape.variables(rev));
    body.put("files", Map.of("main.tf", shape.mainTf()));
    body.put("message", "soak " + shape.name() + (destroy ? " destroy" : ""));
    if (destroy) {
      body.put("destroy", true);
    }
    SoakApi.Response r = api.call("POST", "/api/v1/runs", tenant.token(), body, rev);
    if (r.status() != 201 && r.status() != 200) {
      failedSubmissions.incrementAndGet();
      out.println(
          "soak: starting a run on "
              + tenant.name()
              + "/"
              + workspace(w)
              + " answered "
              + r.status()
              + ": "
              + r.body());
      return null;
    }
    String runId = r.text("/id");
    started.incrementAndGet();
    synchronized (manifest) {
      for (String line : shape.manifestLines(rev, runId)) {
        manifest.write(line + "\n");
      }
      manifest.flush();
    }
    return runId;
  }

  /**
   * Polls the run until it ended, approving (or discarding) a plan that waits for approval. Gives
   * up only once {@code runPatience} has passed since it began following <em>and</em> no fault is
   * to come <em>and</em> the checker's bound (plus a margin) has passed since the last fault was
   * over: until then the checker could not call the run stuck, so neither may the workload leave it
   * (an approval nobody decides would make it stuck).
   */
  private void follow(Tenant tenant, String runId, boolean approvals, boolean discard)
      throws IOException, InterruptedException {
    long patienceOver = System.nanoTime() + runPatience.toNanos();
    while (System.nanoTime() < patienceOver || !Instant.now().isAfter(followUntil())) {
      SoakApi.Response r;
      try {
        r = api.call("GET", "/api/v1/runs/" + runId, tenant.token(), null, null);
      } catch (IOException noPlannerAnswered) {
        // every planner down for the API client's whole patience: keep following the run
        out.println("soak: following run " + runId + ": " + noPlannerAnswered);
        continue;
      }
      JsonNode run = r.json();
      recordRead(tenant, r, "GET /api/v1/runs/" + runId);
      String status = run.path("status").asText();
      if (run.path("terminal").asBoolean(false)) {
        outcomes.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        if (status.equals("errored")) { // what its user was told, for the soak's notes
          out.println("soak: run " + runId + " errored: " + run.path("message").asText());
        }
        return;
      }
      if (approvals && status.equals("planned") && !run.path("planDigest").asText().isEmpty()) {
        try {
          if (discard) {
            api.call("POST", "/api/v1/runs/" + runId + "/discard", tenant.token(), Map.of(), null);
          } else {
            api.call(
                "POST",
                "/api/v1/runs/" + runId + "/approve",
                tenant.token(),
                Map.of("planDigest", run.path("planDigest").asText()),
                null);
          }
        } catch (IOException noPlannerAnswered) {
          out.println("soak: deciding run " + runId + ": " + noPlannerAnswered); // next poll again
        }
      }
      Thread.sleep(300); // polling the run's status, as the CLI follows a run
    }
    unfinished.incrementAndGet();
    out.println(
        "soak: run "
            + runId
            + " of "
            + tenant.name()
            + " did not end within "
            + runPatience
            + " nor within the checker's bound after the last fault");
  }

  /**
   * Reads another tenant's last run with this tenant's token: the API must answer as if it did not
   * exist (404). Whatever comes back with a tenant is recorded for the isolation check.
   */
  private void probeOtherTenant(Tenant tenant, Random random)
      throws IOException, InterruptedException {
    Tenant other = tenants.get(random.nextInt(tenants.size()));
    String runId = lastRunOf.get(other.name());
    if (other.equals(tenant) || runId == null) {
      return;
    }
    String path = "/api/v1/runs/" + runId;
    recordRead(tenant, api.call("GET", path, tenant.token(), null, null), "GET " + path);
  }

  /** Appends {@code <at> <reader> <owner> <resource>} when the answer says whose data it is. */
  private void recordRead(Tenant reader, SoakApi.Response r, String resource) throws IOException {
    String owner = r.json().path("tenant").asText("");
    if (r.status() != 200 || owner.isEmpty()) {
      return;
    }
    synchronized (reads) {
      reads.write(Instant.now() + " " + reader.name() + " " + owner + " " + resource + "\n");
    }
  }

  int started() {
    return started.get();
  }

  int unfinished() {
    return unfinished.get();
  }

  int failedSubmissions() {
    return failedSubmissions.get();
  }

  /** Ended runs by status, as the workload saw them. */
  Map<String, Integer> outcomes() {
    Map<String, Integer> m = new TreeMap<>();
    outcomes.forEach((k, v) -> m.put(k, v.get()));
    return m;
  }

  private static void expect(SoakApi.Response r, int status, String what) {
    if (r.status() != status) {
      throw new IllegalStateException(
          "soak set-up: " + what + " answered " + r.status() + " " + r.body());
    }
  }
}
