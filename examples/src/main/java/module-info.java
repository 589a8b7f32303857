/** Runnable GraphRT examples; the decode-loop demo is the README's main job. */
module dev.graphrt.examples {
    requires dev.graphrt.core;
    requires org.slf4j;
}
