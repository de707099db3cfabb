package dev.muster.controller.stream;

import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchStarted;

/**
 * Where the reader of an allocation stream stands (the journal and the sequence last applied) and the rules a call's
 * messages must keep to be applied: {@code started} first and once, naming a journal; a snapshot before any event when
 * that journal is not the cursor's; then each event exactly the last applied plus one. A message that breaks them
 * throws {@link ProtocolViolation}, a listener that throws {@link ListenerFailure}; the cursor then stays at what was
 * applied, so the next call resumes from there and nothing is applied twice or skipped.
 *
 * <p>Not thread-safe on its own: {@link AllocationStreamClient} calls it only inside its synchronization context. The
 * fields the client's metrics read ({@link #journalId()}, {@link #lastApplied()}, {@link #snapshotsApplied()}) are
 * volatile, written only in that context, and may be read anywhere.
 */
final class StreamCursor {
    private final AllocationListener listener;

    private String callJournal; // journal named by the current call's `started`, null before it
    private long callHead; // the extender's newest sequence when the current call started
    private boolean callCaughtUp; // onCaughtUp was delivered for the current call
    private boolean callNeedsSnapshot; // the current call's journal is not the cursor's

    private volatile String journalId = "";
    private volatile long lastApplied;
    private volatile long snapshotsApplied;

    StreamCursor(AllocationListener listener) {
        this.listener = listener;
    }

    /** A new call begins: what it must send to resume after what was applied. */
    WatchRequest beginCall() {
        callJournal = null;
        callNeedsSnapshot = false;
        return WatchRequest.newBuilder().setResumeAfter(lastApplied).setJournalId(journalId).build();
    }

    String journalId() {
        return journalId;
    }

    long lastApplied() {
        return lastApplied;
    }

    long snapshotsApplied() {
        return snapshotsApplied;
    }

    /** The journal the current call's {@code started} named (null before it). */
    String callJournal() {
        return callJournal;
    }

    void onStarted(WatchStarted started) {
        if (callJournal != null) {
            throw new ProtocolViolation("a second `started` in one call");
        }
        if (started.getJournalId().isEmpty()) {
            throw new ProtocolViolation("`started` without a journal id");
        }
        callJournal = started.getJournalId();
        boolean sameHistory = callJournal.equals(journalId) || (journalId.isEmpty() && lastApplied == 0);
        callNeedsSnapshot = !sameHistory;
        if (sameHistory) {
            journalId = callJournal;
        }
        callHead = started.getLastSequence();
        callCaughtUp = false;
        if (!callNeedsSnapshot && lastApplied == callHead) {
            reportCaughtUp(); // nothing to replay
        }
    }

    void onSnapshot(AllocationSnapshot snapshot) {
        requireStarted("a snapshot");
        if (!callNeedsSnapshot && snapshot.sequence() < lastApplied) {
            throw new ProtocolViolation("a snapshot at " + snapshot.sequence() + " after " + lastApplied + " was applied");
        }
        deliver(() -> listener.onSnapshot(snapshot));
        journalId = callJournal;
        lastApplied = snapshot.sequence();
        callNeedsSnapshot = false;
        snapshotsApplied++; // single writer: the client's context
        if (lastApplied >= callHead) {
            reportCaughtUp();
        }
    }

    void onEvent(SequencedEvent event) {
        requireStarted("an event");
        if (callNeedsSnapshot) {
            throw new ProtocolViolation("event " + event.sequence() + " of journal " + callJournal + " before the snapshot that must replace journal \""
                    + journalId + "\"");
        }
        if (event.sequence() != lastApplied + 1) {
            throw new ProtocolViolation("event " + event.sequence() + " after " + lastApplied + " (expected " + (lastApplied + 1) + ")");
        }
        deliver(() -> listener.onEvent(event));
        lastApplied = event.sequence();
        if (lastApplied >= callHead) {
            reportCaughtUp();
        }
    }

    private void reportCaughtUp() {
        if (!callCaughtUp) {
            callCaughtUp = true;
            deliver(listener::onCaughtUp);
        }
    }

    private void requireStarted(String what) {
        if (callJournal == null) {
            throw new ProtocolViolation(what + " before `started`");
        }
    }

    private static void deliver(Runnable delivery) {
        try {
            delivery.run();
        } catch (RuntimeException e) {
            throw new ListenerFailure(e);
        }
    }

    /** The server broke the stream protocol. */
    static final class ProtocolViolation extends RuntimeException {
        ProtocolViolation(String message) {
            super(message, null, false, false);
        }
    }

    /** The listener threw; wraps its exception. */
    static final class ListenerFailure extends RuntimeException {
        ListenerFailure(RuntimeException cause) {
            super(cause);
        }
    }
}
