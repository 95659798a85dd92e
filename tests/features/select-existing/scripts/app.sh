#!/bin/sh
echo "app with database $DB_EDITION $DB_VERSION"
