#!/bin/sh
echo "site $SITE_NUMBER"
