package com.example.shop.repository;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-memory storage shared by all repositories.
 *
 * <p>Subclasses only tell how to obtain the identifier of an entity.
 *
 * @param <T> the entity type
 */
public abstract class BaseRepository<T> {

    /** Entities by identifier. */
    protected final Map<String, T> store = new ConcurrentHashMap<>();

    /**
     * Identifier of an entity.
     *
     * @param entity the entity
     * @return its identifier
     */
    protected abstract String idOf(T entity);

    /**
     * Looks an entity up by identifier.
     *
     * @param id the identifier
     * @return the entity, or empty when unknown
     */
    public Optional<T> findById(String id) {
        return Optional.ofNullable(store.get(id));
    }

    /**
     * Inserts or replaces an entity.
     *
     * @param entity the entity to store
     * @return the stored entity
     */
    public T save(T entity) {
        store.put(idOf(entity), entity);
        return entity;
    }

    /** @return a snapshot of all stored entities */
    public List<T> findAll() {
        return new ArrayList<>(store.values());
    }

    /** @return the number of stored entities */
    public int count() {
        return store.size();
    }
}
