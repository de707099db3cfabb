package dev.muster.bench;

import dev.muster.controller.Controller;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.status.PodObservation;
import dev.muster.core.status.StatusFolding;
import dev.muster.core.status.StatusKey;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.SequencedEvent;

/**
 * Where {@link ControllerLoad} delivers its workload: {@link ToController} into the real controller's input ports, as
 * the informers and the stream client would; {@link ToFold} into a bare fold (for the model of Volcano's design).
 */
final class ControllerLoadSinks {
    private ControllerLoadSinks() {}

    /** Workload → the controller's input ports, as the informers and the stream client would deliver. */
    static final class ToController implements ControllerLoadWorkload.Sink {
        private final Controller controller;
        private final ControllerLoadTime time;
        private final ControllerLoadApi.Patches api;
        private long sequence;

        ToController(Controller controller, ControllerLoadTime time, ControllerLoadApi.Patches api) {
            this.controller = controller;
            this.time = time;
            this.api = api;
        }

        @Override
        public void queue(QueueSpec spec) {
            controller.cluster().queue(spec, null);
        }

        @Override
        public void podGroup(PodGroupSpec spec) {
            controller.cluster().podGroup(spec, null);
        }

        @Override
        public void podGroupDeleted(GangKey key) {
            controller.cluster().podGroupDeleted(key);
            api.deleted(StatusKey.podGroup(key));
        }

        @Override
        public void pod(PodObservation pod) {
            controller.cluster().pod(pod);
        }

        @Override
        public void podDeleted(String uid) {
            controller.cluster().podDeleted(uid);
        }

        @Override
        public void stream(AllocationEvent event, long nanos) {
            time.set(Math.max(time.getAsLong(), nanos));
            controller.allocations().onEvent(new SequencedEvent(++sequence, time.millis(), event));
        }
    }

    /** Workload → a bare fold (for the seed model run). */
    static final class ToFold implements ControllerLoadWorkload.Sink {
        private final StatusFolding fold;
        private final ControllerLoadTime time;
        private long sequence;

        ToFold(StatusFolding fold, ControllerLoadTime time) {
            this.fold = fold;
            this.time = time;
        }

        @Override
        public void queue(QueueSpec spec) {
            fold.observeQueue(spec);
        }

        @Override
        public void podGroup(PodGroupSpec spec) {
            fold.observePodGroup(spec, null);
        }

        @Override
        public void podGroupDeleted(GangKey key) {
            fold.podGroupDeleted(key);
        }

        @Override
        public void pod(PodObservation pod) {
            fold.observePod(pod);
        }

        @Override
        public void podDeleted(String uid) {
            fold.podDeleted(uid);
        }

        @Override
        public void stream(AllocationEvent event, long nanos) {
            time.set(Math.max(time.getAsLong(), nanos));
            fold.onEvent(new SequencedEvent(++sequence, time.millis(), event));
        }
    }
}
