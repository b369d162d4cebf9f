package dev.stagecraft.state.adapter.http;

import io.micronaut.core.io.buffer.ReadBuffer;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.ServerHttpRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

/**
 * A request body as a blocking {@link InputStream} that keeps {@value #AHEAD} buffers requested
 * ahead of its reader (ADR 0036). Micronaut's {@code @Body InputStream} requests one buffer at a
 * time: the event loop reads the next piece from the socket only once the reader has finished the
 * last one and asked again, so reading and processing never overlap and every piece costs two
 * hand-offs between threads. Here the event loop goes on reading while the reader works, and the
 * reader finds the next piece waiting.
 *
 * <p>In memory: at most {@value #AHEAD} pieces, each what Netty read at once (up to 64 KiB with the
 * state service's {@code max-chunk-size}), so about 1 MiB per request. One reader thread; the
 * subscriber side is called by the event loop. Closing it releases what it holds and cancels the
 * rest of the body.
 */
final class PrefetchingBodyStream extends InputStream implements Subscriber<ReadBuffer> {
  /** Buffers requested ahead of the reader. */
  static final int AHEAD = 16;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();

  /** Guarded by {@link #lock}. */
  private final ArrayDeque<ReadBuffer> waiting = new ArrayDeque<>();

  private Subscription subscription; // guarded by lock
  private boolean done; // guarded by lock
  private Throwable failure; // guarded by lock
  private boolean closed; // guarded by lock

  /** The piece being read; the reader's only. */
  private ReadBuffer current;

  private PrefetchingBodyStream() {}

  /** The body of {@code request} (a server request: the body is claimed), read ahead. */
  static InputStream of(HttpRequest<?> request) {
    return of(((ServerHttpRequest<?>) request).byteBody().toReadBufferPublisher());
  }

  /** The bytes {@code body} publishes, read ahead. */
  static InputStream of(Publisher<ReadBuffer> body) {
    PrefetchingBodyStream stream = new PrefetchingBodyStream();
    body.subscribe(stream);
    return stream;
  }

  @Override
  public void onSubscribe(Subscription s) {
    boolean cancel;
    lock.lock();
    try {
      subscription = s;
      cancel = closed;
    } finally {
      lock.unlock();
    }
    if (cancel) {
      s.cancel();
    } else {
      s.request(AHEAD);
    }
  }

  @Override
  public void onNext(ReadBuffer buffer) {
    lock.lock();
    try {
      if (closed) {
        buffer.close();
        return;
      }
      waiting.add(buffer);
      arrived.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onError(Throwable t) {
    lock.lock();
    try {
      failure = t;
      done = true;
      arrived.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onComplete() {
    lock.lock();
    try {
      done = true;
      arrived.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    if (current == null && !next()) {
      return -1;
    }
    int n = Math.min(len, current.readable());
    if (n == current.readable()) {
      current.toArray(b, off);
      current.close();
      current = null;
      requestOne();
    } else {
      try (ReadBuffer head = current.split(n)) {
        head.toArray(b, off);
      }
    }
    return n;
  }

  /** Waits for the next non-empty piece; false at the end of the body. */
  private boolean next() throws IOException {
    while (true) {
      ReadBuffer piece;
      lock.lock();
      try {
        while (waiting.isEmpty() && !done && !closed) {
          arrived.awaitUninterruptibly();
        }
        if (closed) {
          throw new IOException("the request body was closed");
        }
        piece = waiting.poll();
        if (piece == null) {
          if (failure != null) {
            throw failure instanceof IOException io
                ? io
                : new IOException("the request body failed: " + failure, failure);
          }
          return false;
        }
      } finally {
        lock.unlock();
      }
      if (piece.readable() > 0) {
        current = piece;
        return true;
      }
      piece.close();
      requestOne();
    }
  }

  private void requestOne() {
    Subscription s;
    lock.lock();
    try {
      s = subscription;
    } finally {
      lock.unlock();
    }
    s.request(1);
  }

  @Override
  public void close() {
    Subscription s;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      s = done ? null : subscription;
      waiting.forEach(ReadBuffer::close);
      waiting.clear();
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
    if (current != null) {
      current.close();
      current = null;
    }
    if (s != null) {
      s.cancel();
    }
  }
}
