<?php

namespace App\Support;

/**
 * Records when a model was last changed.
 */
trait HasTimestamps
{
    protected ?string $updatedAt = null;

    public function touch(): void
    {
        $this->updatedAt = date('c');
    }
}
