package dev.stagecraft.state.adapter.http;

import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.history.StoredDocument;

/**
 * A response body that is a stored state document of {@code workspace}, sent as it was pushed (ADR
 * 0026): {@link StoredDocumentBodyWriter} streams its bytes from the database in slices, or from
 * {@code held} when they were read already (with the head, ADR 0031: in memory as stored,
 * decompressed slice by slice, ADR 0041; null otherwise). Nothing else is read until the response
 * is written.
 */
record StoredDocumentBody(
    StateStore states,
    String tenant,
    String workspace,
    StoredDocument document,
    StateStore.DocumentSlices held) {}
