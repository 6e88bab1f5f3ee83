package com.example.library.repository

/**
 * A minimal list-backed store shared by the repositories.
 *
 * @param T the stored entity type
 */
abstract class BaseStore<T> {

    /** The stored entities, in insertion order. */
    protected val entries = mutableListOf<T>()

    /**
     * Stores [item].
     *
     * @param item the entity to keep
     */
    fun insert(item: T) {
        entries.add(item)
    }

    /** A copy of every stored entity. */
    fun snapshot(): List<T> = entries.toList()

    /** Number of stored entities. */
    fun size(): Int = entries.size
}
