package dev.stagecraft.state.adapter.document;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded pipe of byte chunks from one writing thread to one reading thread (ADR 0031): the
 * receiving parser writes the request body into {@link #output()} while the database driver reads
 * it from {@link #input()} into the content row. At most {@code chunks} full chunks of {@code
 * chunkSize} bytes wait between the two, plus the one each side is working on, and chunks are
 * reused once read, so the memory a push holds (and allocates) is bounded whatever the document's
 * size. The writer blocks while the pipe is full, the reader while it is empty.
 *
 * <p>Either side can end it early: {@link #abort} (the writer's failure: the reader's next read
 * throws an {@link IOException} carrying it, so the driver abandons the statement), and closing the
 * input (the reader is done or failed: the writer's next write throws, so it never blocks on a
 * reader that is gone). Thread-safe for exactly one writer and one reader.
 */
public final class ContentPipe {
  private final int chunkSize;
  private final int capacity;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notFull = lock.newCondition();
  private final Condition notEmpty = lock.newCondition();
  private final ArrayDeque<byte[]> ready = new ArrayDeque<>();
  private final ArrayDeque<byte[]> free = new ArrayDeque<>(); // read chunks, for the writer again
  private boolean writerClosed;
  private Throwable writerFailure;
  private boolean readerClosed;

  // writer's side, touched by the writing thread only
  private byte[] filling;
  private int filled;

  // reader's side, touched by the reading thread only
  private byte[] reading = new byte[0];
  private int readAt;

  private final OutputStream output = new Output();
  private final InputStream input = new Input();

  /**
   * @param chunkSize bytes per chunk handed over
   * @param capacity full chunks that may wait for the reader
   */
  public ContentPipe(int chunkSize, int capacity) {
    if (chunkSize <= 0 || capacity <= 0) {
      throw new IllegalArgumentException("chunk size and capacity must be positive");
    }
    this.chunkSize = chunkSize;
    this.capacity = capacity;
    this.filling = new byte[chunkSize];
  }

  /** The writing end; closing it hands over the last partial chunk and ends the stream. */
  public OutputStream output() {
    return output;
  }

  /** The reading end; closing it tells the writer that nothing more will be read. */
  public InputStream input() {
    return input;
  }

  /** Whether the reader has closed its end (it finished or failed). */
  public boolean readerClosed() {
    lock.lock();
    try {
      return readerClosed;
    } finally {
      lock.unlock();
    }
  }

  /** Ends the stream with {@code failure}: the reader's next read throws an IOException with it. */
  public void abort(Throwable failure) {
    lock.lock();
    try {
      if (!writerClosed) {
        writerFailure = failure;
        writerClosed = true;
      }
      notEmpty.signalAll();
      notFull.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Queues a full chunk for the reader; returns a chunk to fill next (a read one, or new). */
  private byte[] handOver(byte[] chunk) throws IOException {
    lock.lock();
    try {
      while (ready.size() >= capacity && !readerClosed) {
        notFull.await();
      }
      if (readerClosed) {
        throw new IOException("the database stopped reading the document");
      }
      ready.addLast(chunk);
      notEmpty.signal();
      byte[] reused = free.pollFirst();
      return reused != null ? reused : new byte[chunkSize];
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while handing the document to the database");
    } finally {
      lock.unlock();
    }
  }

  private final class Output extends OutputStream {
    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      while (len > 0) {
        int n = Math.min(len, chunkSize - filled);
        System.arraycopy(b, off, filling, filled, n);
        filled += n;
        off += n;
        len -= n;
        if (filled == chunkSize) {
          byte[] full = filling;
          filled = 0;
          filling = handOver(full);
        }
      }
    }

    @Override
    public void close() throws IOException {
      if (filled > 0) {
        byte[] last = java.util.Arrays.copyOf(filling, filled);
        filled = 0;
        handOver(last);
      }
      lock.lock();
      try {
        writerClosed = true;
        notEmpty.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }

  private final class Input extends InputStream {
    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (readAt == reading.length) {
        byte[] next = take();
        if (next == null) {
          return -1;
        }
        reading = next;
        readAt = 0;
      }
      int n = Math.min(len, reading.length - readAt);
      System.arraycopy(reading, readAt, b, off, n);
      readAt += n;
      return n;
    }

    private byte[] take() throws IOException {
      lock.lock();
      try {
        while (ready.isEmpty() && !writerClosed) {
          notEmpty.await();
        }
        if (writerFailure != null) {
          throw new IOException("the upload ended early: " + writerFailure, writerFailure);
        }
        if (reading.length == chunkSize) {
          free.addLast(reading); // read to its end: the writer may fill it again
        }
        byte[] chunk = ready.pollFirst();
        notFull.signal();
        return chunk;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while reading the uploaded document");
      } finally {
        lock.unlock();
      }
    }

    @Override
    public void close() {
      lock.lock();
      try {
        readerClosed = true;
        ready.clear();
        notFull.signalAll();
      } finally {
        lock.unlock();
      }
    }
  }
}
