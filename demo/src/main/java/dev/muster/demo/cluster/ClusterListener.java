package dev.muster.demo.cluster;

/**
 * Receives a watch's events, one call at a time, in the order the changes happened, on the watch's own
 * thread. An exception is logged and the next event is delivered (an informer handler's failure does not
 * stop the informer).
 */
@FunctionalInterface
public interface ClusterListener {
    void onEvent(ClusterEvent event);
}
