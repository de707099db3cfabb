package dev.muster.common.leader;

import java.util.ArrayList;
import java.util.List;

/** Records callback invocations in order, under a lock. */
final class RecordingCallbacks implements LeaderCallbacks {
    private final List<String> events = new ArrayList<>();

    @Override
    public synchronized void onStartedLeading() {
        events.add("started");
    }

    @Override
    public synchronized void onStoppedLeading() {
        events.add("stopped");
    }

    @Override
    public synchronized void onNewLeader(String identity) {
        events.add("leader " + identity);
    }

    synchronized List<String> events() {
        return List.copyOf(events);
    }
}
