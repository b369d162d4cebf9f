package dev.stagecraft.state.adapter;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Bounded in-process caches: maps that forget their least recently used entry when full. */
public final class LruMaps {
  private LruMaps() {}

  /**
   * A thread-safe map of at most {@code capacity} entries that drops the least recently used one (a
   * {@code get} counts as a use) when a {@code put} would exceed it.
   */
  public static <K, V> Map<K, V> synchronizedLru(int capacity) {
    return Collections.synchronizedMap(
        new LinkedHashMap<>(16, 0.75f, true) {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
            return size() > capacity;
          }
        });
  }
}
