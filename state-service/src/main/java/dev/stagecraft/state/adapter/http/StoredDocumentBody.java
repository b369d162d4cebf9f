package dev.stagecraft.state.adapter.http;

import dev.stagecraft.state.adapter.db.StateStore;
import dev.stagecraft.state.history.StoredDocument;

/**
 * A response body that is a stored state document of {@code workspace}, sent as it was pushed (ADR
 * 0026): {@link StoredDocumentBodyWriter} streams its bytes from the database in whole slices.
 * Nothing is read until the response is written.
 */
record StoredDocumentBody(
    StateStore states, String tenant, String workspace, StoredDocument document) {}
