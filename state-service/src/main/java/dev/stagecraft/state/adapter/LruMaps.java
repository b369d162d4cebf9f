package dev.stagecraft.state.adapter;

import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.ConcurrentMap;

/** Bounded in-process caches (Caffeine): maps that forget entries when full. */
public final class LruMaps {
  private LruMaps() {}

  /**
   * A thread-safe map of at most about {@code capacity} entries: when full, Caffeine evicts the
   * entries least likely to be used again (recency and frequency, W-TinyLFU). Its compound
   * operations ({@code merge}, {@code compute}) are atomic. For caches only: an entry may be gone
   * at any time, so nothing may depend on one being kept.
   */
  public static <K, V> ConcurrentMap<K, V> bounded(int capacity) {
    return Caffeine.newBuilder().maximumSize(capacity).<K, V>build().asMap();
  }
}
