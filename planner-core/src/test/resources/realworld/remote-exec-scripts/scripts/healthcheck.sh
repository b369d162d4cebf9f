#!/bin/sh
pg_isready -h localhost
