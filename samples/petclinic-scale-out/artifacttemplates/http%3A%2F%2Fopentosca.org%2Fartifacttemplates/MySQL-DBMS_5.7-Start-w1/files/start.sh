#!/bin/sh
sudo service mysql restart;
