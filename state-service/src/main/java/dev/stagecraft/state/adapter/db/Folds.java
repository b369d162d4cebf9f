package dev.stagecraft.state.adapter.db;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stagecraft.schemas.EventCodec;
import dev.stagecraft.servicekit.db.Sql;
import dev.stagecraft.state.adapter.LruMaps;
import dev.stagecraft.state.history.StateEvent;
import dev.stagecraft.state.history.StateSnapshot;
import dev.stagecraft.state.history.StoredDocument;
import dev.stagecraft.state.history.WorkspaceState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

/**
 * The folds of workspaces' histories: the newest snapshot plus the events after it, the in-process
 * cache of the last fold per workspace and of the stored document a workspace's head pushed, and
 * the snapshots a write adds (ADR 0068 split this out of StateStore; the rules are the ones
 * described there).
 */
final class Folds {
  private static final ObjectMapper JSON = EventCodec.mapper();
  private static final TypeReference<Map<String, Object>> JSON_OBJECT = new TypeReference<>() {};

  /** A write adds a snapshot once this many events were appended since the newest one. */
  static final int SNAPSHOT_INTERVAL = 100;

  /** How many workspaces' folds the in-process cache keeps. */
  static final int CACHED_WORKSPACES = 1024;

  private record WorkspaceKey(String tenant, String workspace) {}

  /**
   * Workspaces whose state is exactly a stored document (ADR 0022): its head event is that
   * document's {@code state_pushed}, by head sequence. Kept apart from {@link #folds}, which only
   * ever holds parsed states; used only while the sequence is the workspace's head.
   */
  private final Map<WorkspaceKey, DocumentHead> documentHeads = LruMaps.bounded(CACHED_WORKSPACES);

  /** The workspace's head event {@code sequence} made its state exactly {@code document}. */
  record DocumentHead(long sequence, StoredDocument document) {}

  /** The newest fold seen per workspace; valid only while its sequence is the workspace's head. */
  private final Map<WorkspaceKey, Folded> folds = LruMaps.bounded(CACHED_WORKSPACES);

  /** The cached fold of the workspace (any head), or null. */
  Folded cached(String tenant, String workspace) {
    return folds.get(new WorkspaceKey(tenant, workspace));
  }

  /** The cached stored document the workspace's head pushed: its sequence and document, or null. */
  DocumentHead cachedDocument(String tenant, String workspace) {
    return documentHeads.get(new WorkspaceKey(tenant, workspace));
  }

  /**
   * A push committed: the workspace's head {@code sequence} made its state exactly {@code
   * document}.
   */
  void pushed(String tenant, String workspace, long sequence, StoredDocument document) {
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    folds.remove(key);
    documentHeads.put(key, new DocumentHead(sequence, document));
  }

  /**
   * The workspace's head as this process knows it (the newer of its cached document head and cached
   * fold), else as read on {@code c} now. May be stale when another instance or writer moved on:
   * {@link DocumentStore} checks it under the workspace's row lock.
   */
  Head knownHead(Connection c, String tenant, String workspace) throws SQLException {
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    DocumentHead document = documentHeads.get(key);
    Folded folded = folds.get(key);
    if (document != null && (folded == null || document.sequence() >= folded.sequence())) {
      return documentHead(document.sequence(), document.document());
    }
    if (folded != null) {
      return new Head(folded.sequence(), folded.state(), null);
    }
    return head(c, tenant, workspace, EventLog.headSequence(c, tenant, workspace));
  }

  /**
   * A workspace's state at its head {@code sequence}: {@code document} set when the head event
   * pushed that stored document (then {@code state} holds only its serial and lineage), else the
   * full fold.
   */
  record Head(long sequence, WorkspaceState state, StoredDocument document) {}

  Head head(Connection c, String tenant, String workspace, long sequence) throws SQLException {
    if (sequence == 0) {
      return new Head(0, WorkspaceState.EMPTY, null); // no events: nothing to read
    }
    WorkspaceKey key = new WorkspaceKey(tenant, workspace);
    DocumentHead cached = documentHeads.get(key);
    if (cached != null && cached.sequence() == sequence) {
      return documentHead(sequence, cached.document());
    }
    Folded folded = folds.get(key);
    if (folded == null || folded.sequence() != sequence) {
      folded = null;
      StoredDocument stored = null;
      if (sequence > 0) {
        // the newest event at or below the head that changed the state: events that change
        // nothing (a run opening's fencing_advanced, a forced unlock) keep a pushed document the
        // state, without loading it
        try (PreparedStatement ps =
                Sql.prepare(
                    c,
                    "SELECT type = 'state_pushed' AND jsonb_typeof(payload -> 'stored') = 'object',"
                        + " payload::text FROM state.state_events WHERE tenant = ?"
                        + " AND workspace = ? AND sequence <= ?"
                        + " AND type NOT IN ('fencing_advanced', 'lock_force_unlocked')"
                        + " ORDER BY sequence DESC LIMIT 1",
                    tenant,
                    workspace,
                    sequence);
            ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            stored =
                ((StateEvent.StateReplaced) EventLog.fromJson("state_pushed", rs.getString(2)))
                    .stored();
          }
        }
      }
      if (stored != null) {
        documentHeads.put(key, new DocumentHead(sequence, stored));
        return documentHead(sequence, stored);
      }
      folded = fold(c, tenant, workspace, sequence);
      remember(tenant, workspace, folded);
    }
    return new Head(sequence, folded.state(), null);
  }

  private static Head documentHead(long sequence, StoredDocument document) {
    return new Head(
        sequence, new WorkspaceState(document.serial(), document.lineage(), Map.of()), document);
  }

  /**
   * The fold of the workspace's events 1..{@code upTo}: the cached one when it is exactly that; the
   * cached one plus the events after it when it is at most {@value #SNAPSHOT_INTERVAL} events
   * behind (a run opening's own {@code fencing_advanced}, say: one event, not a snapshot and up to
   * a hundred); else the newest snapshot at or below {@code upTo} (of a format this code reads)
   * plus the events after it.
   */
  Folded fold(Connection c, String tenant, String workspace, long upTo) throws SQLException {
    Folded cached = cached(tenant, workspace);
    if (cached != null && cached.sequence() == upTo) {
      return cached;
    }
    long from = 0;
    long snapshotSequence = 0;
    WorkspaceState state = WorkspaceState.EMPTY;
    if (cached != null
        && cached.sequence() < upTo
        && upTo - cached.sequence() <= SNAPSHOT_INTERVAL) {
      // events never change: the cached fold is the state at its sequence
      from = cached.sequence();
      snapshotSequence = cached.snapshotSequence();
      state = cached.state();
    } else {
      try (PreparedStatement ps =
              Sql.prepare(
                  c,
                  "SELECT sequence, state::text FROM state.state_snapshots"
                      + " WHERE tenant = ? AND workspace = ? AND sequence <= ?"
                      + " AND state ->> 'format' IN (?, ?) ORDER BY sequence DESC LIMIT 1",
                  tenant,
                  workspace,
                  upTo,
                  Integer.toString(StateSnapshot.FORMAT),
                  Integer.toString(StateSnapshot.FORMAT_BEFORE_OUTPUTS));
          ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          from = rs.getLong(1);
          snapshotSequence = from;
          state = StateSnapshot.fromSnapshot(readSnapshot(rs.getString(2)));
        }
      }
    }
    // A stored document (ADR 0022) is loaded only when the fold needs what it holds: when an
    // event follows it, or at the end. A later replacement makes loading it unnecessary.
    StoredDocument pending = null;
    for (StateStore.StoredEvent event : EventLog.events(c, tenant, workspace, from, upTo)) {
      if (event.event() instanceof StateEvent.StateReplaced r && r.stored() != null) {
        pending = r.stored();
        continue;
      }
      if (pending != null && !event.event().changesState()) {
        continue; // a run opening after a push, say: no reason to load the document
      }
      if (pending != null) {
        state = DocumentReader.load(c, tenant, workspace, pending);
        pending = null;
      }
      state = state.apply(event.event());
    }
    if (pending != null) {
      state = DocumentReader.load(c, tenant, workspace, pending);
    }
    return new Folded(upTo, state, snapshotSequence);
  }

  /**
   * Caches {@code fold} unless the cache already holds a newer one of the workspace, or one of the
   * same head that knows the newest fencing token while {@code fold} does not.
   */
  void remember(String tenant, String workspace, Folded fold) {
    if (fold.sequence() == 0) {
      return; // nothing written yet: nothing worth keeping
    }
    folds.merge(
        new WorkspaceKey(tenant, workspace),
        fold,
        (old, fresh) ->
            fresh.sequence() > old.sequence()
                    || (fresh.sequence() == old.sequence()
                        && (fresh.newest() != EventAppend.UNKNOWN_TOKEN
                            || old.newest() == EventAppend.UNKNOWN_TOKEN))
                ? fresh
                : old);
  }

  static void writeSnapshot(
      Connection c,
      String tenant,
      String workspace,
      long sequence,
      WorkspaceState state,
      Instant now)
      throws SQLException {
    String json;
    try {
      json = JSON.writeValueAsString(StateSnapshot.toSnapshot(state));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state snapshot not serializable", e);
    }
    // A snapshot at this sequence may exist already (say, in a format only a newer version
    // reads): keep it; every snapshot of one sequence holds the same state.
    Sql.update(
        c,
        "INSERT INTO state.state_snapshots (tenant, workspace, sequence, state, created_at)"
            + " VALUES (?, ?, ?, ?::jsonb, ?) ON CONFLICT (tenant, workspace, sequence) DO NOTHING",
        tenant,
        workspace,
        sequence,
        json,
        now);
  }

  /** {@code state} in the snapshot form {@code state.state_snapshots} stores. */
  static String snapshotJson(WorkspaceState state) {
    try {
      return JSON.writeValueAsString(StateSnapshot.toSnapshot(state));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("state snapshot not serializable", e);
    }
  }

  private static Map<String, Object> readSnapshot(String json) {
    try {
      return JSON.readValue(json, JSON_OBJECT);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored state snapshot unreadable", e);
    }
  }
}
