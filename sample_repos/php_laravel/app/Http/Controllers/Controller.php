<?php

namespace App\Http\Controllers;

/**
 * Base controller: JSON responses.
 */
abstract class Controller
{
    protected function json(mixed $data, int $status = 200): array
    {
        return ['status' => $status, 'body' => $data];
    }
}
