package dev.muster.deploy;

import java.util.List;
import java.util.Map;

/** One rendered Kubernetes object. */
record Manifest(Map<String, Object> body) {

    String kind() {
        return Tree.string(body, "kind");
    }

    String name() {
        return Tree.string(body, "metadata", "name");
    }

    String id() {
        return kind() + "/" + name();
    }

    Map<String, Object> spec() {
        return Tree.map(body, "spec");
    }

    /** Pod template labels of a Deployment. */
    Map<String, Object> podLabels() {
        return Tree.map(body, "spec", "template", "metadata", "labels");
    }

    /** Pod spec of a Deployment. */
    Map<String, Object> podSpec() {
        return Tree.map(body, "spec", "template", "spec");
    }

    List<Map<String, Object>> containers() {
        return Tree.maps(podSpec(), "containers");
    }

    /** The single container of a Deployment (every Deployment of the chart has one). */
    Map<String, Object> container() {
        List<Map<String, Object>> containers = containers();
        if (containers.size() != 1) {
            throw new AssertionError(id() + " has " + containers.size() + " containers, expected 1");
        }
        return containers.get(0);
    }
}
