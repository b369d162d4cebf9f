package dev.stagecraft.devstack;

import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import dev.stagecraft.platform.kafka.EventConsumer;
import dev.stagecraft.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Who may do what on Stagecraft's topics and consumer groups: the Kafka ACLs of each {@link
 * StackPrincipal}, least privilege (docs/events.md "Who may write and read", ADR 0058). Nothing
 * else is allowed: the broker runs with {@code allow.everyone.if.no.acl.found=false}, and only the
 * broker and {@link StackPrincipal#ADMIN} are super users.
 *
 * <ul>
 *   <li>planner: writes actions, action-events (an {@code action.finished} of outcome {@code
 *       interrupted}), run-events, control, trigger-secrets, dead-letter; reads actions (its
 *       restart recovery), action-events, state-events, lock-events, run-requests, trigger-secrets;
 *       its groups {@code planner-…} and {@code stagecraft-planner-run-requests}; describes the
 *       group {@code executors} (their committed offsets, ADR 0056)
 *   <li>executor: reads actions (group {@code executors}) and control (groups {@code
 *       executors-control-…}); writes action-events and dead-letter
 *   <li>state: reads action-events (group {@code state-service}); writes state-events and
 *       dead-letter
 *   <li>lock: writes lock-events
 *   <li>a bot ({@link #botBindings}, the dev stack's {@code trigger}): writes run-requests, reads
 *       run-events with groups named after itself ({@code <user>-…})
 * </ul>
 *
 * <p>An idempotent producer needs no {@code IDEMPOTENT_WRITE} on the cluster: since Kafka 3.0 a
 * principal allowed to write to any topic may initialize one (KIP-679).
 */
public final class KafkaAccessPolicy {
  private static final String DEAD_LETTER = EventConsumer.DEAD_LETTER_TOPIC;

  private KafkaAccessPolicy() {}

  /** Every ACL of the stack's principals. */
  public static List<AclBinding> bindings() {
    List<AclBinding> all = new ArrayList<>();
    for (StackPrincipal p : StackPrincipal.values()) {
      all.addAll(bindings(p));
    }
    return List.copyOf(all);
  }

  /** The ACLs of one principal (none for {@link StackPrincipal#ADMIN}: a super user). */
  public static List<AclBinding> bindings(StackPrincipal principal) {
    Grants g = new Grants(principal.principal());
    switch (principal) {
      case PLANNER -> {
        g.topics(
            WRITE,
            Topics.ACTIONS,
            Topics.ACTION_EVENTS,
            Topics.RUN_EVENTS,
            Topics.CONTROL,
            Topics.TRIGGER_SECRETS,
            DEAD_LETTER);
        g.topics(
            READ,
            Topics.ACTIONS,
            Topics.ACTION_EVENTS,
            Topics.STATE_EVENTS,
            Topics.LOCK_EVENTS,
            Topics.RUN_REQUESTS,
            Topics.TRIGGER_SECRETS);
        g.groupsPrefixed(READ, Topics.PLANNER_GROUP_PREFIX);
        g.group(READ, Topics.RUN_REQUESTS_GROUP);
        g.group(DESCRIBE, Topics.EXECUTORS_GROUP);
      }
      case EXECUTOR -> {
        g.topics(READ, Topics.ACTIONS, Topics.CONTROL);
        g.topics(WRITE, Topics.ACTION_EVENTS, DEAD_LETTER);
        g.group(READ, Topics.EXECUTORS_GROUP);
        g.groupsPrefixed(READ, Topics.EXECUTOR_CONTROL_GROUP_PREFIX);
      }
      case STATE -> {
        g.topics(READ, Topics.ACTION_EVENTS);
        g.topics(WRITE, Topics.STATE_EVENTS, DEAD_LETTER);
        g.group(READ, Topics.STATE_GROUP);
      }
      case LOCK -> g.topics(WRITE, Topics.LOCK_EVENTS);
      case TRIGGER -> {
        return botBindings(principal.user());
      }
      case ADMIN -> {
        // a super user: no ACL needed
      }
    }
    return List.copyOf(g.bindings);
  }

  /**
   * The ACLs of a bot's principal {@code user}: write {@code stagecraft.run-requests}, read {@code
   * stagecraft.run-events} with consumer groups whose names start with {@code <user>-} (or with
   * assigned partitions, no group).
   */
  public static List<AclBinding> botBindings(String user) {
    Grants g = new Grants("User:" + user);
    g.topics(WRITE, Topics.RUN_REQUESTS);
    g.topics(READ, Topics.RUN_EVENTS);
    g.groupsPrefixed(READ, botGroupPrefix(user));
    return List.copyOf(g.bindings);
  }

  /** The consumer groups a bot may use start with its user name and a dash. */
  public static String botGroupPrefix(String user) {
    return user + "-";
  }

  /**
   * Makes the broker's ACLs of the stack's principals exactly {@link #bindings()}: creates the
   * missing ones, deletes the others of these principals (ACLs of other principals, such as more
   * bots, are left alone), and returns once the broker (not only its controller) enforces them.
   * Idempotent: a second call changes nothing.
   *
   * @param admin a client of a super user
   */
  public static void ensure(Admin admin, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    Set<AclBinding> wanted = new HashSet<>(bindings());
    Set<String> ours = new HashSet<>();
    Arrays.stream(StackPrincipal.values()).forEach(p -> ours.add(p.principal()));
    List<AclBinding> stale = new ArrayList<>();
    Set<AclBinding> present = new HashSet<>();
    for (AclBinding b : describe(admin, timeout)) {
      if (wanted.contains(b)) {
        present.add(b);
      } else if (ours.contains(b.entry().principal())) {
        stale.add(b);
      }
    }
    if (!stale.isEmpty()) {
      admin
          .deleteAcls(stale.stream().map(AclBinding::toFilter).toList())
          .all()
          .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    List<AclBinding> missing = wanted.stream().filter(b -> !present.contains(b)).toList();
    if (!missing.isEmpty()) {
      admin.createAcls(missing).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
    awaitEnforced(admin, wanted, stale, timeout);
  }

  /** Waits until the broker's own authorizer holds {@code wanted} and none of {@code gone}. */
  private static void awaitEnforced(
      Admin admin, Set<AclBinding> wanted, Collection<AclBinding> gone, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      Collection<AclBinding> held = describe(admin, timeout);
      if (held.containsAll(wanted) && gone.stream().noneMatch(held::contains)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException(
            "the broker did not enforce the stack's ACLs within " + timeout.toSeconds() + " s");
      }
      Thread.sleep(20); // the broker applies the metadata a moment after its controller
    }
  }

  private static Collection<AclBinding> describe(Admin admin, Duration timeout)
      throws InterruptedException, ExecutionException, TimeoutException {
    return admin
        .describeAcls(AclBindingFilter.ANY)
        .values()
        .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Collects one principal's allow-ACLs, from any host. */
  private static final class Grants {
    final String principal;
    final List<AclBinding> bindings = new ArrayList<>();

    Grants(String principal) {
      this.principal = principal;
    }

    void topics(AclOperation operation, String... topics) {
      for (String topic : topics) {
        add(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL), operation);
      }
    }

    void group(AclOperation operation, String group) {
      add(new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL), operation);
    }

    void groupsPrefixed(AclOperation operation, String prefix) {
      add(new ResourcePattern(ResourceType.GROUP, prefix, PatternType.PREFIXED), operation);
    }

    private void add(ResourcePattern pattern, AclOperation operation) {
      bindings.add(
          new AclBinding(
              pattern, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW)));
    }
  }
}
