/**
 * Launch info words: the cache that gives equal words one device slice, and the storage behind it. Internal to runtime-core (not exported); null-marked: NullAway checks it.
 */
@NullMarked
package dev.graphrt.core.metadata;

import org.jspecify.annotations.NullMarked;
