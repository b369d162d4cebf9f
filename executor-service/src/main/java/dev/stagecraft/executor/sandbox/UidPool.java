package dev.stagecraft.executor.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out the uids sandboxes run as, so that no two sandboxes on a host ever share one: two
 * actions' commands — of two tenants, or of one — can then never signal, trace or read each other's
 * processes or files, whatever else goes wrong.
 *
 * <p>A uid is leased by an exclusive lock ({@code flock}) on {@code <directory>/<uid>.lock}: the
 * executors of one host that share the directory never hand out the same uid, and the kernel
 * releases a dead executor's locks, so its uids return to the pool by themselves. Whoever takes a
 * uid next finds what the dead one left (its file system, its control group) and removes it first
 * ({@link BubblewrapSandbox}).
 *
 * <p>Concurrency: thread-safe; {@link #lease} may be called from any number of threads. Java file
 * locks belong to the whole JVM, so the uids this instance holds are also kept in a set.
 */
final class UidPool {
  private final Path directory;
  private final int first;
  private final int count;
  private final Set<Integer> held = new HashSet<>(); // guarded by this

  UidPool(Path directory, int first, int count) {
    this.directory = directory;
    this.first = first;
    this.count = count;
  }

  /** A uid no other sandbox of this host runs as until the lease is closed. */
  interface Lease extends AutoCloseable {
    int uid();

    @Override
    void close();
  }

  /**
   * Leases a free uid, starting the search at a random place so that a released uid is not taken
   * again at once.
   *
   * @return empty when every uid of the range is leased
   */
  Optional<Lease> lease() throws IOException {
    Files.createDirectories(directory);
    int start = ThreadLocalRandom.current().nextInt(count);
    for (int i = 0; i < count; i++) {
      int uid = first + (start + i) % count;
      synchronized (this) {
        if (!held.add(uid)) {
          continue;
        }
      }
      Optional<Lease> lease = tryLock(uid);
      if (lease.isPresent()) {
        return lease;
      }
      release(uid);
    }
    return Optional.empty();
  }

  private Optional<Lease> tryLock(int uid) throws IOException {
    FileChannel channel =
        FileChannel.open(
            directory.resolve(uid + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      return Optional.empty();
    }
    return Optional.of(
        new Lease() {
          @Override
          public int uid() {
            return uid;
          }

          @Override
          public void close() {
            try {
              lock.release();
              channel.close();
            } catch (IOException e) {
              // closing the channel releases the lock in any case
            } finally {
              release(uid);
            }
          }
        });
  }

  private synchronized void release(int uid) {
    held.remove(uid);
  }

  /** How many uids this instance holds now (for tests and health). */
  synchronized int leased() {
    return held.size();
  }
}
