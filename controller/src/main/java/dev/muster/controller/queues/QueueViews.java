package dev.muster.controller.queues;

import dev.muster.core.model.GangKey;
import dev.muster.core.status.PodGroupView;
import dev.muster.core.status.QueueView;
import dev.muster.core.status.StatusFolding;
import java.util.List;

/** Read access to queue and gang state (the port the service reads; the fold is the real one). Thread-safe. */
public interface QueueViews {
    /** An observed queue, or null. */
    QueueView queue(String name);

    /** Every observed queue, by name. */
    List<QueueView> queues();

    /** An observed PodGroup's gang, or null. */
    PodGroupView gang(GangKey key);

    /** Every observed PodGroup's gang. */
    List<PodGroupView> gangs();

    static QueueViews of(StatusFolding fold) {
        return new QueueViews() {
            @Override
            public QueueView queue(String name) {
                return fold.queue(name);
            }

            @Override
            public List<QueueView> queues() {
                return fold.queues();
            }

            @Override
            public PodGroupView gang(GangKey key) {
                return fold.gang(key);
            }

            @Override
            public List<PodGroupView> gangs() {
                return fold.gangs();
            }
        };
    }
}
