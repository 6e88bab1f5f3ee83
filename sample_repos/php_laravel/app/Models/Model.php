<?php

namespace App\Models;

/**
 * Base of the stored models: attributes and persistence.
 */
abstract class Model
{
    protected array $attributes = [];

    public function __construct(array $attributes = [])
    {
        $this->fill($attributes);
    }

    public static function create(array $attributes): static
    {
        $model = new static($attributes);
        $model->save();
        return $model;
    }

    public function fill(array $attributes): static
    {
        $this->attributes = array_merge($this->attributes, $attributes);
        return $this;
    }

    public function save(): bool
    {
        return true;
    }
}
