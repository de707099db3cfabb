package dev.muster.core.ledger;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link Ledger}'s node entries, by name in insertion order and by {@link NodeNames} id (for those that have one), so
 * the filter finds a candidate's entry without hashing its name ({@link #candidate}). An entry is made when anything is
 * recorded on a node and dropped when it no longer stands for anything ({@link #dropIfGone}). Not thread-safe: confined
 * to the ledger owner's lock.
 */
final class NodeEntries {
    private final Map<String, NodeEntry> byName = new LinkedHashMap<>();
    private NodeEntry[] byId = new NodeEntry[0]; // the same entries by NodeNames id (those that have one), for candidate()

    /** The node's entry, or null. */
    NodeEntry get(String name) {
        return byName.get(name);
    }

    boolean containsKey(String name) {
        return byName.containsKey(name);
    }

    /** Live entries in insertion order, read-only. */
    Collection<NodeEntry> values() {
        return Collections.unmodifiableCollection(byName.values());
    }

    int size() {
        return byName.size();
    }

    /** See {@link Ledger#candidate}. */
    NodeEntry candidate(List<String> candidates, int index) {
        if (candidates instanceof NodeList l) {
            int id = l.id(index);
            if (id != NodeNames.NONE) {
                return id < byId.length ? byId[id] : null;
            }
        }
        return byName.get(candidates.get(index));
    }

    /** The node's entry, made (not yet known: not schedulable until the Node is seen) if it has none. */
    NodeEntry entryFor(String name) {
        NodeEntry e = byName.get(name);
        if (e == null) {
            int id = NodeNames.shared().id(name);
            e = new NodeEntry(id == NodeNames.NONE ? name : NodeNames.shared().nameOf(id), id);
            byName.put(e.name(), e);
            if (id != NodeNames.NONE) {
                if (id >= byId.length) {
                    byId = Arrays.copyOf(byId, Math.max(id + 1, 2 * byId.length));
                }
                byId[id] = e;
            }
        }
        return e;
    }

    /** Forgets an entry that no longer stands for anything: a node not (or no longer) seen, with nothing on it. */
    void dropIfGone(NodeEntry e) {
        if (!e.known() && e.isEmpty()) {
            byName.remove(e.name());
            if (e.id() != NodeNames.NONE) {
                byId[e.id()] = null;
            }
        }
    }
}
